#include <boost/program_options.hpp>
#include <iostream>

#include "engine/cli/cli.hpp"
#include "engine/cli/parse_options.hpp"
#include "engine/device/device.hpp"
#include "engine/run/analysis.hpp"
#include "engine/spec/spec.hpp"

namespace dissect::cli {
namespace po = boost::program_options;

int cmd_validate(const Args& args) {
  po::options_description opts(
      "Usage: dissect validate SPEC|DIR... [options]\n\n"
      "Checks specs without running anything: YAML syntax, keys (with 'did you mean'),\n"
      "types, units, contradictory settings, and every sweep point. Prints the number of\n"
      "points each spec expands to. Directories are searched for *.yaml; device profiles\n"
      "(files with a 'dissect_profile' key) are checked as profiles. Errors are printed as\n"
      "file:line:col: message; the exit status is then 2. Nothing is written.\n\nOptions");
  std::vector<std::string> specs, sets;
  std::int64_t max_points = 0;  // signed: "-1" must be refused, not wrap to 2^64-1
  opts.add_options()("help,h", "this text")(
      "set", po::value(&sets)->composing(), "override a field for every spec: key=value (repeatable)")(
      "max-points", po::value(&max_points), "sweep point limit (default: the spec's max_points, else 100000)");
  po::options_description hidden;
  hidden.add_options()("spec", po::value(&specs)->composing());
  po::positional_options_description pos;
  pos.add("spec", -1);
  po::options_description all;
  all.add(opts).add(hidden);
  po::variables_map vm;
  if (const auto done = parse_options("validate", args, opts, vm, &all, &pos)) return *done;
  if (specs.empty()) {
    std::cerr << "dissect validate: name at least one spec file or directory\n" << opts << "\n";
    return kExitInvalid;
  }
  if (vm.count("max-points") != 0 && max_points <= 0) {
    std::cerr << "dissect validate: --max-points " << max_points << ": expected a whole number above zero\n";
    return kExitInvalid;
  }
  LoadOptions load;
  load.max_points = static_cast<std::uint64_t>(max_points);
  try {
    for (const auto& s : sets) {
      auto [k, v] = split_assignment(s, "--set");
      load.overrides.push_back({k, v});
    }
  } catch (const std::invalid_argument& e) {
    std::cerr << "dissect validate: " << e.what() << "\n";
    return kExitInvalid;
  }

  int status = kExitOk;
  std::size_t ok = 0, bad = 0;
  for (const auto& path : expand_spec_arguments(specs)) {
    try {
      if (is_device_profile_file(path)) {
        const DeviceFactory* validator = nullptr;
        for (const auto& f : device_factories())
          if (f.validate_profile) validator = &f;
        if (validator == nullptr) {
          std::cout << path << ": device profile (not checked: this build has no simulated GPU)\n";
          continue;
        }
        std::cout << path << ": " << validator->validate_profile(path) << "\n";
        ++ok;
        continue;
      }
      const Spec spec = load_spec(path, load);
      Diagnostics d;
      check_analyzer_names(spec.base, d);
      if (!d.empty()) throw SpecError(d);
      if (spec.base.abstract) {
        std::cout << path << ": abstract base (for include:), valid\n";
      } else if (spec.adaptive()) {
        std::cout << path << ": " << spec.point_count() << " point(s) x adaptive search\n";
      } else {
        std::cout << path << ": " << spec.point_count() << " point" << (spec.point_count() == 1 ? "" : "s");
        if (spec.skipped_points > 0)
          std::cout << " (" << spec.skipped_points << " invalid combinations skipped)";
        std::cout << "\n";
      }
      ++ok;
    } catch (const SpecError& e) {
      std::cerr << e.diagnostics().str();
      status = kExitInvalid;
      ++bad;
    }
  }
  if (ok + bad > 1) std::cout << ok << " valid, " << bad << " invalid\n";
  return status;
}

}  // namespace dissect::cli
