#include "engine/cli/parse_options.hpp"

#include <iostream>

#include "engine/core/settings.hpp"

namespace dissect::cli {
namespace po = boost::program_options;

std::optional<int> parse_options(const char* verb, const Args& args, const po::options_description& visible,
                                 po::variables_map& vm, const po::options_description* all,
                                 const po::positional_options_description* positional,
                                 std::vector<ParsedOption>* parsed) {
  try {
    // A verb without positional arguments must refuse a stray word, not ignore it.
    const po::positional_options_description none;
    po::command_line_parser parser(args);
    parser.options(all != nullptr ? *all : visible);
    parser.positional(positional != nullptr ? *positional : none);
    const po::parsed_options options = parser.run();
    po::store(options, vm);
    if (parsed != nullptr)
      for (const auto& o : options.options)
        parsed->push_back({o.position_key >= 0 ? std::string() : o.string_key, o.original_tokens});
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

void add_run_setting_options(po::options_description& opts) {
  opts.add_options()("timing", po::value<int>(),
                     "0: no timing report (default); 1: print where each GPU run's wall time went; 2: print "
                     "a timeline of each run's host steps, thread by thread (DISSECT_CUDA_TIMING is the fallback)")(
      "no-cache", "compile every kernel afresh; nothing is read from or stored in the compile cache "
                  "(DISSECT_NO_CACHE=1 is the fallback)");
}

std::optional<int> apply_run_setting_options(const char* verb, const po::variables_map& vm) {
  if (vm.count("timing") != 0) {
    const int level = vm["timing"].as<int>();
    if (level < 0 || level > 2) {
      std::cerr << "dissect " << verb << ": --timing takes 0, 1 or 2 (got " << level << ")\n";
      return kExitInvalid;
    }
    settings::set_timing_level(level);
  }
  if (vm.count("no-cache") != 0) settings::set_compile_cache_enabled(false);
  return std::nullopt;
}

}  // namespace dissect::cli
