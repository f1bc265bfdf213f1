#include <doctest/doctest.h>

#include "engine/cli/parse_options.hpp"

using namespace dissect::cli;
namespace po = boost::program_options;

namespace {
struct Opts {
  po::options_description visible{"Options"};
  po::options_description all;
  po::positional_options_description pos;
  std::string out;
  std::vector<std::string> files;
  Opts() {
    visible.add_options()("help,h", "this text")("out,o", po::value(&out), "output");
    po::options_description hidden;
    hidden.add_options()("file", po::value(&files)->composing());
    all.add(visible).add(hidden);
    pos.add("file", -1);
  }
};
}  // namespace

TEST_CASE("parse_options: values and positionals, --help, errors") {
  {
    Opts o;
    po::variables_map vm;
    CHECK_FALSE(parse_options("x", {"a.yaml", "-o", "dir", "b.yaml"}, o.visible, vm, &o.all, &o.pos).has_value());
    CHECK(o.out == "dir");
    CHECK(o.files == std::vector<std::string>{"a.yaml", "b.yaml"});
  }
  {
    Opts o;
    po::variables_map vm;
    CHECK(parse_options("x", {"--help"}, o.visible, vm, &o.all, &o.pos) == kExitOk);
  }
  {
    Opts o;
    po::variables_map vm;
    CHECK(parse_options("x", {"--frobnicate"}, o.visible, vm, &o.all, &o.pos) == kExitInvalid);
    // Without positional arguments declared, a bare word is an error too.
    po::variables_map vm2;
    CHECK(parse_options("x", {"stray"}, o.visible, vm2) == kExitInvalid);
  }
}
