#include "engine/cli/parse_options.hpp"

#include <iostream>

namespace dissect::cli {
namespace po = boost::program_options;

std::optional<int> parse_options(const char* verb, const Args& args, const po::options_description& visible,
                                 po::variables_map& vm, const po::options_description* all,
                                 const po::positional_options_description* positional) {
  try {
    // A verb without positional arguments must refuse a stray word, not ignore it.
    const po::positional_options_description none;
    po::command_line_parser parser(args);
    parser.options(all != nullptr ? *all : visible);
    parser.positional(positional != nullptr ? *positional : none);
    po::store(parser.run(), vm);
    po::notify(vm);
  } catch (const po::error& e) {
    std::cerr << "dissect " << verb << ": " << e.what() << "\n" << visible << "\n";
    return kExitInvalid;
  }
  if (vm.count("help") != 0) {
    std::cout << visible << "\n";
    return kExitOk;
  }
  return std::nullopt;
}

}  // namespace dissect::cli
