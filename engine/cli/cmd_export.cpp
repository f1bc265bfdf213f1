#include <boost/program_options.hpp>
#include <iostream>

#include "engine/cli/cli.hpp"
#include "engine/cli/parse_options.hpp"
#include "engine/core/files.hpp"
#include "engine/topology/accelsim_check.hpp"
#include "engine/topology/accelsim_config.hpp"
#include "engine/topology/topology_file.hpp"

namespace dissect::cli {
namespace po = boost::program_options;

namespace {

int print_problems(const std::string& name, const std::vector<AccelSimProblem>& problems) {
  for (const auto& p : problems) std::cerr << name << ":" << p.line << ": " << p.message << "\n";
  return problems.empty() ? kExitOk : kExitFailure;
}

}  // namespace

int cmd_export(const Args& args) {
  po::options_description opts(
      "Usage: dissect export accelsim TOPOLOGY_DIR|topology.json [options]\n"
      "       dissect export accelsim --check CONFIG...\n\n"
      "Writes a measured topology (the output directory of 'dissect topology', or its topology.json) as\n"
      "a GPGPU-Sim / Accel-Sim gpgpusim.config fragment: the L1 data, texture, constant and L2 caches\n"
      "(<N|S>:<sets>:<line>:<ways>,<policies>,<MSHR>), latencies, L2 partitions and memory channels,\n"
      "shared-memory banks and clocks (the DRAM clock derived from the measured bandwidth). Every option\n"
      "is preceded by comments naming the topology.json figure it came from; what dissect did not\n"
      "measure is a stated default marked [default]. --trace-config writes the trace-driven Accel-Sim's\n"
      "trace.config fragment (the texture unit's fixed latency). The output is checked against the\n"
      "rules of GPGPU-Sim's parsers before it is written; --check applies that check to any config\n"
      "file (docs/export.md).\n\n"
      "Exit status: 0 written (or the check passed), 1 the check found problems, 2 bad arguments or\n"
      "an unreadable topology.\n\nOptions");
  std::vector<std::string> positional;
  std::string out, trace_out;
  opts.add_options()("help,h", "this text")("out,o", po::value(&out),
                                            "write the gpgpusim.config fragment here (default: stdout)")(
      "trace-config", po::value(&trace_out), "also write the trace.config fragment (trace-driven Accel-Sim) here")(
      "check", "check the CONFIG files instead of exporting: every line against GPGPU-Sim's option rules");
  po::options_description hidden;
  hidden.add_options()("positional", po::value(&positional)->composing());
  po::positional_options_description pos;
  pos.add("positional", -1);
  po::options_description all;
  all.add(opts).add(hidden);
  po::variables_map vm;
  if (const auto done = parse_options("export", args, opts, vm, &all, &pos)) return *done;
  if (positional.empty()) {
    std::cerr << "dissect export: name a format: accelsim\n" << opts << "\n";
    return kExitInvalid;
  }
  if (positional.front() != "accelsim") {
    std::cerr << "dissect export: unknown format '" << positional.front() << "' (formats: accelsim)\n";
    return kExitInvalid;
  }
  const std::vector<std::string> files(positional.begin() + 1, positional.end());
  if (vm.count("check") != 0) {
    if (files.empty()) {
      std::cerr << "dissect export: --check needs the config files to check\n";
      return kExitInvalid;
    }
    int status = kExitOk;
    for (const auto& f : files) {
      std::string text;
      try {
        text = read_text_file(f);
      } catch (const std::exception& e) {
        std::cerr << "dissect export: " << e.what() << "\n";
        return kExitInvalid;
      }
      const auto problems = check_accelsim_config(text);
      if (print_problems(f, problems) != kExitOk) status = kExitFailure;
      std::cout << f << ": " << (problems.empty() ? "passes" : std::to_string(problems.size()) + " problem(s)")
                << " the Accel-Sim format check\n";
    }
    return status;
  }
  if (files.size() != 1) {
    std::cerr << "dissect export: give one topology directory or topology.json\n";
    return kExitInvalid;
  }
  TopologyFile topology;
  try {
    topology = read_topology_file(files.front());
  } catch (const std::exception& e) {
    std::cerr << "dissect export: " << e.what() << "\n";
    return kExitInvalid;
  }
  // A topology that did not complete (interrupted, failed steps, or killed while 'running')
  // exports what it measured; the steps it lacks become stated defaults: say so.
  if (const std::string st = topology.topology.value("status", std::string("unknown")); st != "complete")
    std::cerr << "dissect export: warning: " << files.front() << " is a topology whose status is '" << st
              << "': what its missing steps would have measured is exported as [default]\n";
  const AccelSimConfig config = accelsim_config(topology);
  const std::string text = render_gpgpusim_config(config, topology);
  const std::string trace = render_trace_config(config, topology);
  // The export must pass its own check: a failure is a bug of the export.
  const int a = print_problems("gpgpusim.config", check_accelsim_config(text));
  const int b = print_problems("trace.config", check_accelsim_config(trace));
  if (a != kExitOk || b != kExitOk) {
    std::cerr << "dissect export: the exported configuration fails the format check (a bug: please report it)\n";
    return kExitFailure;
  }
  try {
    if (out.empty())
      std::cout << text;
    else
      write_file_atomic(out, text, false);
    if (!trace_out.empty()) write_file_atomic(trace_out, trace, false);
  } catch (const std::exception& e) {
    std::cerr << "dissect export: " << e.what() << "\n";
    return kExitInvalid;
  }
  if (!out.empty()) std::cerr << out << ": gpgpusim.config fragment, passes the Accel-Sim format check\n";
  if (!trace_out.empty()) std::cerr << trace_out << ": trace.config fragment, passes the Accel-Sim format check\n";
  return kExitOk;
}

}  // namespace dissect::cli
