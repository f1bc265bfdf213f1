#include <unistd.h>

#include <boost/program_options.hpp>
#include <csignal>
#include <iostream>
#include <optional>

#include "engine/bundle/bundle.hpp"
#include "engine/cli/cli.hpp"
#include "engine/cli/parse_options.hpp"
#include "engine/cli/reexec.hpp"
#include "engine/core/background_worker.hpp"
#include "engine/core/timeline.hpp"
#include "engine/device/device.hpp"
#include "engine/run/device_memory_check.hpp"
#include "engine/run/resume.hpp"
#include "engine/run/runner.hpp"
#include "engine/spec/units.hpp"

namespace dissect::cli {
namespace po = boost::program_options;

namespace {

std::atomic<bool> g_stop{false};

extern "C" void on_interrupt(int) {
  // First Ctrl-C (or SIGTERM, SIGHUP): finish the point in hand and close the
  // bundle. A second one kills the process the usual way.
  g_stop.store(true);
  std::signal(SIGINT, SIG_DFL);
  std::signal(SIGTERM, SIG_DFL);
  std::signal(SIGHUP, SIG_DFL);
}

void install_stop_handlers() {
  std::signal(SIGINT, on_interrupt);
  std::signal(SIGTERM, on_interrupt);
  std::signal(SIGHUP, on_interrupt);
}

void print_point(const Point& p) {
  const Experiment& e = p.experiment;
  std::cout << "  #" << p.id;
  for (const auto& [f, v] : p.axis_values) std::cout << " " << f << "=" << v;
  const bool store = e.access == Access::store;
  std::cout << "  [" << to_string(e.kernel) << (store ? " store" : "") << " path=" << to_string(e.path)
            << (store ? std::string(" (st.") + store_operator(e.path) + ")" : std::string()) << " "
            << to_string(e.element)
            << " N=" << format_bytes(e.array.size_bytes) << " s=" << format_bytes(e.array.stride_bytes)
            << " pattern=" << to_string(e.array.pattern) << " iterations=" << e.iterations << " warmup=" << e.warmup
            << " timing=" << to_string(e.timing.mode) << "/" << to_string(e.timing.clock)
            << " threads=" << e.layout.threads << "x" << e.layout.blocks << " carveout=" << e.carveout << "]\n";
}

// Prints how a spec's run went; returns its exit status (0, 1 or 130).
int report_outcome(const Spec& spec, const RunOutcome& r) {
  int status = kExitOk;
  std::cout << spec.path << ": " << r.status << ", " << r.points_done << "/" << r.points_total << " points -> "
            << r.bundle_dir << "\n";
  char timing[200];
  std::snprintf(timing, sizeof timing, "  wall %.1f ms, kernels %.1f ms, compile %.1f ms, %zu launches\n", r.wall_ms,
                r.timings.kernel_ms, r.timings.compile_ms, r.timings.launches);
  std::cout << timing;
  if (r.status == "failed") {
    std::cerr << "dissect run: " << spec.path << ": " << r.error << "\n";
    status = kExitFailure;
  }
  // Conditions that can spoil the figures without failing the run (bundle.json "conditions").
  for (const auto& w : r.condition_warnings) std::cerr << "dissect run: " << spec.path << ": warning: " << w << "\n";
  if (!r.findings.empty()) print_findings(r.findings, false);
  for (const auto& x : r.expectations) {
    std::cout << "  expect " << x.message << "\n";
    if (x.outcome != ExpectationResult::Outcome::pass) status = std::max(status, kExitFailure);
  }
  if (r.status == "interrupted") {
    std::cerr << "dissect run: interrupted; " << r.points_done << " completed points are in " << r.bundle_dir
              << " (continue with: dissect run --resume " << r.bundle_dir << ")\n";
    return kExitInterrupted;
  }
  return status;
}

// dissect run --resume BUNDLE: the same spec, device and dissect, the points the bundle lacks.
int resume_run(const std::string& dir, const std::string& device_sel, const RunOptions& base_options) {
  ResumePlan plan;
  std::optional<Spec> spec;
  try {
    plan = plan_resume(dir);
    if (plan.complete) {
      std::cout << dir << ": complete: nothing to resume\n";
      return kExitOk;
    }
    spec = load_spec(plan.spec_path, plan.load);
    check_resume_spec(plan, *spec);
  } catch (const SpecError& e) {
    std::cerr << e.diagnostics().str() << "dissect run: --resume " << dir << ": the bundle's spec is not valid here\n";
    return kExitInvalid;
  } catch (const RunError& e) {
    std::cerr << "dissect run: --resume: " << e.what() << "\n";
    return kExitFailure;
  }
  background::warm_up();
  std::unique_ptr<Device> device;
  try {
    device = open_device(device_sel.empty() ? plan.device_selector : device_sel, spec->expanded);
    check_resume_device(plan, *device);
    check_points_fit_device(*spec, spec->expanded, *device);
  } catch (const RunError& e) {
    std::cerr << "dissect run: --resume: " << e.what() << "\n";
    return kExitFailure;
  }
  install_stop_handlers();
  RunOptions ro = base_options;
  ro.resume_dir = dir;
  RunOutcome r;
  try {
    r = run_spec(*spec, *device, ro, g_stop);
  } catch (const RunError& e) {
    std::cerr << "dissect run: " << e.what() << "\n";
    return kExitFailure;
  }
  return report_outcome(*spec, r);
}

}  // namespace

// Whether a spec's run ended with the device unable to run anything more in this process (a
// kernel fault whose context could not be recreated: bundle.json "fault", recovered false).
static bool device_lost(const RunOutcome& r) {
  return r.fault.is_object() && r.fault.contains("recovered") && r.fault["recovered"] == false;
}

int cmd_run(const Args& args, const std::vector<std::string>& full_argv) {
  // A batch continued in a fresh process after a kernel fault: the spec that faulted failed.
  const bool failed_before = batch_failed_before();
  po::options_description opts(
      "Usage: dissect run SPEC... [options]\n"
      "       dissect run --resume BUNDLE [--device D]\n\n"
      "Runs each spec into a result bundle (one directory per spec under --out), then runs\n"
      "the analyzers the spec names and checks its expectations. All specs are validated\n"
      "before anything runs. Ctrl-C (SIGINT, SIGTERM, SIGHUP) stops the point in hand; the\n"
      "bundle keeps every completed point, and --resume continues it (or a killed run's).\n\nOptions");
  std::vector<std::string> specs, sets;
  std::string device_sel, out_dir, arch_text, resume_dir;
  std::int64_t max_points = 0;  // signed: "-1" must be refused, not wrap to 2^64-1
  opts.add_options()("help,h", "this text")(
      "device,d", po::value(&device_sel),
      "device: a CUDA ordinal (0, 1, ...) or sim:<profile> (see 'dissect list devices'); default: GPU 0")(
      "out,o", po::value(&out_dir)->default_value("runs"),
      "parent directory of the bundles; each spec gets <out>/<name>, never overwriting (name-2, ...)")(
      "set", po::value(&sets)->composing(), "override a spec field: key=value, e.g. array.size=16KiB (repeatable)")(
      "dry-run,n", "print the expanded points (and generated kernel sources where available); run nothing")(
      "max-points", po::value(&max_points), "sweep point limit (default: the spec's max_points, else 100000)")(
      "no-analyze", "do not run the spec's analyzers after the run")(
      "arch", po::value(&arch_text),
      "with --dry-run: architecture of the printed kernels, e.g. sm_80 (default: the GPU's, else sm_90)")(
      "quiet,q", "no progress on stderr")(
      "resume", po::value(&resume_dir),
      "continue the bundle BUNDLE of an interrupted or killed run: its completed points are kept, the rest "
      "measured; refused when its spec (file, includes, --set), device or dissect version differ. No SPEC.");
  add_run_setting_options(opts);
  po::options_description hidden;
  hidden.add_options()("spec", po::value(&specs)->composing());
  po::positional_options_description pos;
  pos.add("spec", -1);
  po::options_description all;
  all.add(opts).add(hidden);
  po::variables_map vm;
  std::vector<ParsedOption> parsed;
  if (const auto done = parse_options("run", args, opts, vm, &all, &pos, &parsed)) return *done;
  if (const auto bad = apply_run_setting_options("run", vm)) return *bad;
  if (!resume_dir.empty()) {
    if (!specs.empty() || !sets.empty() || vm.count("max-points") != 0 || vm.count("dry-run") != 0) {
      std::cerr << "dissect run: --resume takes the spec, --set and --max-points the bundle recorded; give none\n";
      return kExitInvalid;
    }
    RunOptions ro;
    ro.argv = full_argv;
    ro.analyze = vm.count("no-analyze") == 0;
    ro.progress = vm.count("quiet") == 0 && ::isatty(2) != 0;
    return resume_run(resume_dir, device_sel, ro);
  }
  if (specs.empty()) {
    std::cerr << "dissect run: name at least one spec file\n" << opts << "\n";
    return kExitInvalid;
  }
  if (vm.count("max-points") != 0 && max_points <= 0) {
    std::cerr << "dissect run: --max-points " << max_points << ": expected a whole number above zero\n";
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
    std::cerr << "dissect run: " << e.what() << "\n";
    return kExitInvalid;
  }

  // Validate everything first: a typo in the third spec must not cost the first two's GPU time.
  std::vector<Spec> loaded;
  bool invalid = false;
  for (const auto& path : expand_spec_arguments(specs)) {
    try {
      Spec spec = load_spec(path, load);
      Diagnostics d;
      check_analyzer_names(spec.base, d);
      if (!d.empty()) throw SpecError(d);
      if (spec.base.abstract) {
        std::cerr << path << ": abstract base spec (abstract: true): it is included by other specs, not run\n";
        invalid = true;
      }
      loaded.push_back(std::move(spec));
    } catch (const SpecError& e) {
      std::cerr << e.diagnostics().str();
      invalid = true;
    }
  }
  if (invalid) return kExitInvalid;

  if (vm.count("dry-run")) {
    for (const auto& spec : loaded) {
      std::cout << spec.path << ": " << spec.point_count() << " point(s)\n";
      if (spec.adaptive()) {
        std::cout << "  (adaptive search: points are chosen while running)\n";
        continue;
      }
      const auto points = spec.expand();
      for (const auto& p : points) print_point(p);
      // Generated kernel sources, where the device family has any (asked of its factory: no device opens).
      const std::string selector = device_sel.empty() ? "0" : device_sel;
      if (const DeviceFactory* f = find_device_factory(selector); f != nullptr && f->preview)
        std::cout << f->preview(selector, points, arch_text);
    }
    return kExitOk;
  }

  timeline::mark("run: specs loaded");
  background::warm_up();  // the bundles' worker thread starts while the device opens
  std::unique_ptr<Device> device;
  try {
    // The first spec's first kernel is loaded while the device opens.
    device = open_device(device_sel.empty() ? "0" : device_sel,
                         loaded.empty() ? std::span<const Point>{} : std::span<const Point>(loaded.front().expanded));
  } catch (const RunError& e) {
    std::cerr << "dissect run: " << e.what() << "\n";
    return kExitFailure;
  }

  // Arrays beyond the device's memory are invalid input for this device: refused before anything runs.
  try {
    for (const auto& spec : loaded) check_points_fit_device(spec, spec.expanded, *device);
  } catch (const SpecError& e) {
    std::cerr << e.diagnostics().str();
    return kExitInvalid;
  }

  install_stop_handlers();
  RunOptions ro;
  ro.out_parent = out_dir;
  ro.argv = full_argv;
  ro.analyze = vm.count("no-analyze") == 0;
  ro.progress = vm.count("quiet") == 0 && ::isatty(2) != 0;

  int status = failed_before ? kExitFailure : kExitOk;
  for (std::size_t i = 0; i < loaded.size(); ++i) {
    const Spec& spec = loaded[i];
    if (g_stop.load()) break;
    RunOutcome r;
    try {
      // The device may start on the first point's kernel while run_spec opens the bundle.
      timeline::mark("run: device open, preparing");
      device->prepare(spec.expanded);
      r = run_spec(spec, *device, ro, g_stop);
    } catch (const RunError& e) {
      std::cerr << "dissect run: " << e.what() << "\n";
      status = kExitFailure;
      continue;
    }
    const int spec_status = report_outcome(spec, r);
    if (spec_status == kExitInterrupted) return kExitInterrupted;
    status = std::max(status, spec_status);
    if (device_lost(r) && i + 1 < loaded.size() && g_stop.load()) {
      // Stopped while the GPU was lost: no fresh process; say what did not run.
      std::cerr << "dissect run: interrupted; not run:";
      for (std::size_t j = i + 1; j < loaded.size(); ++j) std::cerr << " " << loaded[j].path;
      std::cerr << "\n";
      return kExitInterrupted;
    }
    if (device_lost(r) && i + 1 < loaded.size()) {
      // CUDA asks for a new process after such a fault: the rest of the batch runs in one, with
      // the same options (same --out, --device, --set), the specs still to run and the failure
      // passed on for the exit status. Each re-execution runs fewer specs: it cannot loop.
      const std::size_t remaining = loaded.size() - i - 1;
      std::vector<std::string> argv{full_argv.empty() ? std::string("dissect") : full_argv[0], "run"};
      for (auto& w : option_words(parsed, {"spec"})) argv.push_back(std::move(w));
      for (std::size_t j = i + 1; j < loaded.size(); ++j)
        argv.push_back(loaded[j].path.rfind('-', 0) == 0 ? "./" + loaded[j].path : loaded[j].path);
      std::cout << "dissect run: " << spec.path << " faulted the GPU, which runs nothing more in this process; "
                << remaining << (remaining == 1 ? " spec remains" : " specs remain")
                << ": continuing in a fresh process\n";
      ::setenv(kBatchFailedEnv, batch_failed_value().c_str(), 1);
      const std::string why = reexec_self(argv);
      ::unsetenv(kBatchFailedEnv);
      std::cerr << "dissect run: cannot continue in a fresh process (" << why << "); not run:";
      for (std::size_t j = i + 1; j < loaded.size(); ++j) std::cerr << " " << loaded[j].path;
      std::cerr << "\n";
      return kExitFailure;
    }
  }
  return status;
}

}  // namespace dissect::cli
