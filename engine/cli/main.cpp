// dissect: discover the memory hierarchy of NVIDIA GPUs from declarative specs.
#include <cstdio>
#include <cstring>
#include <exception>
#include <iostream>
#include <string>
#include <vector>

#include "engine/cli/cli.hpp"
#include "engine/core/background_worker.hpp"
#include "engine/core/diagnostics.hpp"
#include "engine/core/paths.hpp"
#include "engine/core/worker_pool.hpp"

namespace {

const char* kUsage = R"(dissect - discover the memory hierarchy of NVIDIA GPUs from declarative experiment specs

Usage: dissect <command> [options] [arguments]

Commands:
  validate SPEC|DIR...   check specs (every sweep point is decoded); print how many
                         points each expands to. Writes nothing.
  run SPEC...            run specs on a GPU (--device 0) or a simulated GPU
                         (--device sim:<profile>) into result bundles, then analyse them
  analyze BUNDLE         run analyzers on a result bundle
  analyze --trace CSV    ... or on a trace CSV from another tool
  report BUNDLE...       report.md with findings and plots (gnuplot: SVG + PNG)
  topology               map a whole GPU in one command: sizes, lines, latencies, sets,
                         policies, sharing, TLBs, banks, bandwidths (-> topology.json)
  export accelsim TOPOLOGY
                         a measured topology as a GPGPU-Sim / Accel-Sim config fragment
  compare A B [C ...]    topologies side by side, differences beyond run-to-run noise flagged
  list specs|analyzers|devices
                         what is available

Options:
  -h, --help             this text; 'dissect <command> --help' for a command
  --version              version and git revision, and where the templates and specs are read

Exit status:
  0    success
  1    a run failed, or a spec's expectation did not hold
  2    invalid spec, trace, bundle, device profile or command line (file:line:col: message)
  130  interrupted (Ctrl-C, SIGTERM, SIGHUP); completed points stay in the bundle
       ('dissect run --resume BUNDLE' continues it)

Environment:
  DISSECT_TEMPLATES, DISSECT_SPECS
                         kernel templates and spec library (default: <prefix>/share/dissect
                         of an installed binary, else the source tree or the build folder's copy)
  XDG_CACHE_HOME         the compile cache is under $XDG_CACHE_HOME/dissect (else ~/.cache/dissect);
                         DISSECT_NO_CACHE=1: as --no-cache of run and topology
  DISSECT_GNUPLOT, DISSECT_CUOBJDUMP
                         gnuplot for plots, cuobjdump for the SASS kept in bundles
  DISSECT_CUDA_TIMING    as --timing of run and topology (1: where each GPU run's wall
                         time went; 2: a timeline of its host steps)

Specs are YAML files; docs/spec-reference.md describes the language.
)";

}  // namespace

int main(int argc, char** argv) {
  using namespace dissect::cli;
  // Background jobs finish while every static object they may use still exists: the pools
  // themselves are destroyed with the statics, some of them built after the pools.
  struct FinishBackgroundJobs {
    ~FinishBackgroundJobs() {
      dissect::workers::finish();
      dissect::background::finish();
    }
  } finish_background_jobs;
  std::vector<std::string> full(argv, argv + argc);
  if (argc < 2) {
    std::fputs(kUsage, stderr);
    return kExitInvalid;
  }
  const std::string verb = argv[1];
  const Args args(argv + 2, argv + argc);
  try {
    if (verb == "-h" || verb == "--help" || verb == "help") {
      std::fputs(kUsage, stdout);
      return kExitOk;
    }
    if (verb == "--version" || verb == "-V") {
      std::cout << version_line() << "\n"
                << "templates: " << dissect::templates_dir() << "\n"
                << "specs:     " << dissect::specs_dir() << "\n";
      return kExitOk;
    }
    if (verb == "validate") return cmd_validate(args);
    if (verb == "run") return cmd_run(args, full);
    if (verb == "list") return cmd_list(args);
    if (verb == "analyze" || verb == "analyse") return cmd_analyze(args);
    if (verb == "report") return cmd_report(args);
    if (verb == "topology") return cmd_topology(args, full);
    if (verb == "export") return cmd_export(args);
    if (verb == "compare") return cmd_compare(args);
    std::cerr << "dissect: unknown command '" << verb << "'\n\n" << kUsage;
    return kExitInvalid;
  } catch (const dissect::SpecError& e) {
    // Invalid input found below a verb (a device profile opened by --device): exit 2 like every spec error.
    std::cerr << e.diagnostics().str();
    return kExitInvalid;
  } catch (const std::exception& e) {
    std::cerr << "dissect " << verb << ": " << e.what() << "\n";
    return kExitFailure;
  }
}
