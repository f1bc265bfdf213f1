#include <doctest/doctest.h>

#include "engine/cli/parse_options.hpp"
#include "engine/codegen/compile_cache.hpp"
#include "engine/core/settings.hpp"

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

TEST_CASE("--timing and --no-cache set the process-wide settings; a bad level is refused") {
  const int timing_before = dissect::settings::timing_level();
  const bool cache_before = dissect::settings::compile_cache_enabled();
  {
    po::options_description opts{"Options"};
    opts.add_options()("help,h", "this text");
    add_run_setting_options(opts);
    po::variables_map vm;
    REQUIRE_FALSE(parse_options("run", {"--timing", "2", "--no-cache"}, opts, vm).has_value());
    CHECK_FALSE(apply_run_setting_options("run", vm).has_value());
    CHECK(dissect::settings::timing_level() == 2);
    CHECK_FALSE(dissect::settings::compile_cache_enabled());
    // The compile cache reads the setting when it is made.
    CHECK_FALSE(dissect::CompileCache("/nonexistent-dissect-cache").enabled());
  }
  {
    po::options_description opts{"Options"};
    add_run_setting_options(opts);
    po::variables_map vm;
    REQUIRE_FALSE(parse_options("run", {"--timing", "3"}, opts, vm).has_value());
    CHECK(apply_run_setting_options("run", vm) == kExitInvalid);
    CHECK(dissect::settings::timing_level() == 2);  // unchanged by the refused value
  }
  dissect::settings::set_timing_level(timing_before);
  dissect::settings::set_compile_cache_enabled(cache_before);
  CHECK(dissect::CompileCache("/nonexistent-dissect-cache").enabled() == cache_before);
}
