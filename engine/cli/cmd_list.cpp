#include <boost/program_options.hpp>
#include <filesystem>
#include <iostream>

#include "analyzers/registry.hpp"
#include "engine/cli/cli.hpp"
#include "engine/cli/parse_options.hpp"
#include "engine/core/paths.hpp"
#include "engine/device/device.hpp"
#include "engine/spec/spec.hpp"

namespace dissect::cli {
namespace po = boost::program_options;
namespace fs = std::filesystem;

namespace {

int list_specs() {
  const std::string dir = specs_dir();
  std::cout << "spec library: " << dir << "\n";
  for (const auto& path : expand_spec_arguments({dir})) {
    if (is_device_profile_file(path)) continue;
    const std::string rel = fs::relative(path, dir).string();
    try {
      const Spec s = load_spec(path);
      if (s.base.abstract) continue;
      std::cout << "  " << rel << "  (" << s.point_count() << (s.adaptive() ? "+ adaptive" : "") << " points)";
      if (!s.base.description.empty()) std::cout << "\n      " << s.base.description;
      std::cout << "\n";
    } catch (const SpecError& e) {
      std::cout << "  " << rel << "  INVALID: " << e.diagnostics().errors().front().message << "\n";
    }
  }
  return kExitOk;
}

int list_analyzers() {
  for (const auto& a : analyzers()) {
    std::cout << a->name() << "\n    " << a->purpose() << "\n";
    for (const auto& p : a->params())
      std::cout << "    param " << p.name << " (default " << (p.default_value.empty() ? "none" : p.default_value)
                << "): " << p.help << "\n";
  }
  return kExitOk;
}

int list_devices() {
  if (device_factories().empty()) {
    std::cout << "no device backends in this build\n";
    return kExitOk;
  }
  for (const auto& f : device_factories()) {
    std::cout << f.name << ": " << f.help << "\n";
    for (const auto& line : f.list()) std::cout << "  " << line << "\n";
  }
  return kExitOk;
}

}  // namespace

int cmd_list(const Args& args) {
  po::options_description opts(
      "Usage: dissect list specs|analyzers|devices\n\n"
      "  specs      the spec library (DISSECT_SPECS, or the specs/ installed with dissect)\n"
      "  analyzers  every analyzer: name, purpose, parameters and defaults\n"
      "  devices    CUDA GPUs visible here and the simulated-GPU profiles\n\nOptions");
  std::string what;
  opts.add_options()("help,h", "this text");
  po::options_description hidden;
  hidden.add_options()("what", po::value(&what));
  po::positional_options_description pos;
  pos.add("what", 1);
  po::options_description all;
  all.add(opts).add(hidden);
  po::variables_map vm;
  if (const auto done = parse_options("list", args, opts, vm, &all, &pos)) return *done;
  if (what == "specs") return list_specs();
  if (what == "analyzers") return list_analyzers();
  if (what == "devices") return list_devices();
  std::cerr << "dissect list: expected specs, analyzers or devices" << (what.empty() ? "" : ", got '" + what + "'")
            << "\n";
  return kExitInvalid;
}

}  // namespace dissect::cli
