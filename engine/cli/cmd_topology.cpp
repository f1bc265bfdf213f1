#include <unistd.h>

#include <boost/program_options.hpp>
#include <csignal>
#include <filesystem>
#include <iostream>
#include <system_error>
#include <thread>

#include "engine/cli/cli.hpp"
#include "engine/cli/parse_options.hpp"
#include "engine/cli/reexec.hpp"
#include "engine/core/background_worker.hpp"
#include "engine/core/files.hpp"
#include "engine/core/timeline.hpp"
#include "engine/device/device.hpp"
#include "engine/topology/topology_report.hpp"
#include "engine/topology/topology_runner.hpp"
#include "engine/topology/topology_table.hpp"

namespace dissect::cli {
namespace po = boost::program_options;

namespace {
std::atomic<bool> g_topology_stop{false};
extern "C" void on_topology_interrupt(int) {
  // Finish the step in hand and write topology.json; a second signal kills.
  g_topology_stop.store(true);
  std::signal(SIGINT, SIG_DFL);
  std::signal(SIGTERM, SIG_DFL);
  std::signal(SIGHUP, SIG_DFL);
}
// The modern simulated profile the command falls back to without a GPU.
constexpr const char* kFallbackProfile = "sim:h100-sxm";
}  // namespace

int cmd_topology(const Args& args, const std::vector<std::string>& full_argv) {
  po::options_description opts(
      "Usage: dissect topology [--device D] [--out DIR] [--json] [--fast] [--only STEP]... [--no-report]\n\n"
      "Maps the memory hierarchy of a GPU in one command: for each cache its size, line size,\n"
      "fetch granularity, latency (raw and timer-corrected, cycles and ns), sets and ways,\n"
      "replacement policy, sharing and count per SM; the L2 from one SM and from every SM at\n"
      "once, its near/far levels and partition map (SM groups, line split); main-memory latency;\n"
      "TLB levels (entries, reach, sets, scope) and page size; shared-memory latency and banks;\n"
      "bandwidths. Experiments are\n"
      "chained (each sized from the earlier ones), sizes are found by adaptive knee search, and\n"
      "SM-private points run one per SM in parallel. Writes <out>/topology.json, one bundle\n"
      "per experiment under <out>, and the report <out>/report/report.md: the table, then each\n"
      "experiment with its findings and plots (gnuplot SVG/PNG; without gnuplot the plot data\n"
      "and scripts, to render later with 'dissect report <out>'). Without --device: GPU 0 if\n"
      "there is one, else the simulated H100-like profile (said on the first line).\n"
      "One topology at a time writes <out> (a second one fails at once). Ctrl-C, SIGTERM or\n"
      "SIGHUP stops after the step in hand; topology.json says 'running' while it runs.\n\nOptions");
  std::string device_sel, out_dir, resume_dir;
  std::vector<std::string> only;
  opts.add_options()("help,h", "this text")("device,d", po::value(&device_sel),
                                            "a CUDA ordinal or sim:<profile> ('dissect list devices')")(
      "out,o", po::value(&out_dir)->default_value("topology"), "output directory (bundles, topology.json, report/)")(
      "json", "print topology.json instead of the table")(
      "fast", "skip the slow experiments (bandwidth); what CI runs on simulated GPUs")(
      "only", po::value(&only)->composing(), "run only this step (repeatable; see topology.json's experiment ids)")(
      "no-report", "write no report (topology.json and bundles only)")(
      "resume", po::value(&resume_dir),
      "continue the interrupted or killed topology in DIR (its mode and steps): completed steps are kept, a step "
      "that was running continues its bundle, the rest run; refused for another device or dissect version")(
      "retry-failed",
      "with --resume: run again the steps a kernel fault failed (kept as failed otherwise: they would fault again)")(
      "quiet,q", "no progress on stderr");
  add_run_setting_options(opts);
  po::variables_map vm;
  std::vector<ParsedOption> parsed;
  if (const auto done = parse_options("topology", args, opts, vm, nullptr, nullptr, &parsed)) return *done;
  if (const auto bad = apply_run_setting_options("topology", vm)) return *bad;
  if (vm.count("retry-failed") != 0 && resume_dir.empty()) {
    std::cerr << "dissect topology: --retry-failed goes with --resume DIR\n";
    return kExitInvalid;
  }
  if (!resume_dir.empty()) {
    if (!vm["out"].defaulted() || vm.count("fast") != 0 || !only.empty()) {
      std::cerr << "dissect topology: --resume DIR takes its output directory, mode and steps from DIR\n";
      return kExitInvalid;
    }
    out_dir = resume_dir;
    // The device it ran on, unless another is named (which the resumption then refuses).
    if (device_sel.empty()) try {
        device_sel = nlohmann::json::parse(read_text_file(out_dir + "/topology.json")).value("selector", std::string());
      } catch (const std::exception&) {
        // No readable topology.json: run_topology says so.
      }
  }
  // Before anything else: a second topology into the same directory fails at once.
  std::optional<DirectoryLock> lock;
  try {
    lock = lock_topology_dir(out_dir);
  } catch (const RunError& e) {
    std::cerr << "dissect topology: " << e.what() << "\n";
    return kExitFailure;
  }
  background::warm_up();  // the bundles' worker thread starts while the device opens
  std::unique_ptr<Device> device;
  std::string note;
  try {
    if (!device_sel.empty()) {
      device = open_device(device_sel);
    } else {
      try {
        device = open_device("0");
      } catch (const RunError& e) {
        note = std::string("no GPU here (") + e.what() + "); mapping the simulated H100-like GPU (" +
               kFallbackProfile + ") instead";
        device = open_device(kFallbackProfile);
      }
    }
  } catch (const RunError& e) {
    std::cerr << "dissect topology: " << e.what() << "\n";
    return kExitFailure;
  }
  const bool json_out = vm.count("json") != 0;
  if (!note.empty()) (json_out ? std::cerr : std::cout) << note << "\n";
  else if (!json_out) std::cout << "mapping " << device->selector() << "\n";

  std::signal(SIGINT, on_topology_interrupt);
  std::signal(SIGTERM, on_topology_interrupt);
  std::signal(SIGHUP, on_topology_interrupt);
  TopologyOptions o;
  o.out_dir = out_dir;
  o.fast = vm.count("fast") != 0;
  o.progress = vm.count("quiet") == 0;
  o.status_line = ::isatty(2) != 0;
  o.argv = full_argv;
  o.only = only;
  o.resume = !resume_dir.empty();
  o.retry_failed = vm.count("retry-failed") != 0;
  // The report reads each step's bundle as soon as it is complete, while later steps measure.
  const bool want_report = vm.count("no-report") == 0;
  report::ReportOptions ro;
  ro.out_dir = (std::filesystem::path(out_dir) / "report").string();
  std::optional<TopologyReportPreload> preload;
  if (want_report) {
    preload.emplace(out_dir, ro);
    o.bundle_complete = [&preload](const std::string& bundle, std::shared_ptr<AnalysedBundle> analysed) {
      preload->start(bundle, std::move(analysed));
    };
  }
  nlohmann::json result;
  try {
    result = run_topology(*device, o, g_topology_stop);
  } catch (const RunError& e) {
    std::cerr << "dissect topology: " << (o.resume ? "--resume: " : "") << e.what() << "\n";
    return kExitFailure;
  }
  if (result.value("status", std::string()) == "device lost") {
    // A kernel fault left the GPU unusable in this process (CUDA asks for a new one): the
    // topology goes on as `dissect topology --resume DIR` in a fresh process, with the same
    // options but those DIR fixes. The faulted step is kept failed there (not retried), so
    // each re-execution has fewer steps to run: it cannot loop.
    std::string faulted = "a step";
    std::size_t remaining = 0;
    for (const auto& e : result["experiments"]) {
      if (e.contains("fault")) faulted = e.value("id", faulted);
      if (e.value("status", std::string()) == "not run (device lost)") ++remaining;
    }
    std::vector<std::string> argv{full_argv.empty() ? std::string("dissect") : full_argv[0], "topology"};
    for (auto& w : option_words(parsed, {"out", "fast", "only", "resume", "retry-failed"})) argv.push_back(std::move(w));
    argv.push_back("--resume");
    argv.push_back(out_dir);
    (json_out ? std::cerr : std::cout)
        << "dissect topology: step " << faulted << " faulted the GPU, which runs nothing more in this process; "
        << remaining << (remaining == 1 ? " step remains" : " steps remain")
        << ": continuing in a fresh process (dissect topology --resume " << out_dir << ")\n";
    preload.reset();  // no report part (nor its gnuplot) still being written into the directory
    lock.reset();     // the fresh process takes the directory's lock
    const std::string why = reexec_self(argv);
    std::cerr << "dissect topology: cannot continue in a fresh process (" << why << "); continue it with: dissect "
              << "topology --resume " << out_dir << "\n";
    return kExitFailure;
  }
  // The device is done with: its buffers, mappings and context go on a thread of their own
  // while the table and the report are written (a GPU's teardown takes a while), joined
  // before this returns.
  struct DeviceTeardown {
    std::thread thread;
    ~DeviceTeardown() {
      if (thread.joinable()) thread.join();
    }
  } teardown;
  try {
    teardown.thread = std::thread([d = std::move(device)]() mutable {
      d.reset();
      timeline::mark("topology: device released");
    });
  } catch (const std::system_error&) {
    // No thread to be had: the lambda that took the device is gone with the exception, so
    // the device is released here, before the table.
  }
  // Steps whose figures the SM clock or other processes may have spoilt (their bundles say what was seen).
  for (const auto& e : result.value("experiments", nlohmann::json::array()))
    for (const auto& w : e.value("conditions_warnings", nlohmann::json::array()))
      std::cerr << "dissect topology: " << e.value("id", std::string("?")) << ": warning: " << w.get<std::string>()
                << "\n";
  if (json_out) std::cout << result.dump(2) << "\n";
  else std::cout << topology_table(result) << "\nwritten: " << out_dir << "/topology.json\n";
  std::cout.flush();  // the table before the report is written
  timeline::mark("topology: table printed");
  // The report comes after the measurements (its time is not part of the
  // topology's wall time) and is written even for an interrupted run: it shows
  // what was measured.
  if (want_report) {
    try {
      const auto rep = write_topology_report(out_dir, ro, preload ? &*preload : nullptr);
      auto& os = json_out ? std::cerr : std::cout;
      os << "report: " << rep.result.report_md << " (" << rep.result.plots.size() << " plots";
      if (rep.result.gnuplot_found) os << ", " << rep.result.rendered() << " rendered)\n";
      else os << "; not rendered: " << rep.result.gnuplot_message << "; 'dissect report " << out_dir
              << "' renders them where gnuplot is installed)\n";
      // Single-point steps (latencies) have no plot by design; report.md says why
      // for each, so the terminal only gets the count.
      if (!rep.result.warnings.empty())
        os << "report: " << rep.result.warnings.size() << " experiments without a plot (report.md says why)\n";
      for (const auto& w : rep.skipped) std::cerr << "dissect topology: report: " << w << "\n";
      timeline::mark("topology: report written");
    } catch (const std::exception& e) {
      std::cerr << "dissect topology: the report could not be written: " << e.what() << "\n";
      return kExitFailure;
    }
  }
  if (teardown.thread.joinable()) teardown.thread.join();
  timeline::print(stderr);
  if (result.value("status", std::string()) == "interrupted") return kExitInterrupted;
  for (const auto& e : result["experiments"])
    if (e.value("status", std::string()) == "failed") return kExitFailure;
  return kExitOk;
}

}  // namespace dissect::cli
