#include <boost/program_options.hpp>
#include <filesystem>
#include <iostream>

#include "analyzers/registry.hpp"
#include "engine/bundle/bundle.hpp"
#include "engine/cli/cli.hpp"
#include "engine/cli/parse_options.hpp"
#include "engine/core/files.hpp"
#include "engine/run/analysis.hpp"
#include "engine/run/bundle_analysis_plan.hpp"
#include "engine/trace/trace_import.hpp"

namespace dissect::cli {
namespace po = boost::program_options;

int cmd_analyze(const Args& args) {
  po::options_description opts(
      "Usage: dissect analyze BUNDLE [options]\n"
      "       dissect analyze --trace FILE.csv [options]\n\n"
      "Runs analyzers offline (no GPU needed). On a bundle, the default analyzers are the\n"
      "ones its spec names, with their parameters, read from the expanded spec that\n"
      "bundle.json records (no spec or include file is read; a spec that names none:\n"
      "summary); on a trace CSV, every analyzer. A trace CSV needs\n"
      "the columns size_bytes, stride_bytes, seq, offset_bytes, latency (cycles); rows that\n"
      "share size_bytes and stride_bytes form one sweep point, in file order; other columns\n"
      "are ignored.\n\nOptions");
  std::string bundle, trace;
  std::vector<std::string> names, params;
  opts.add_options()("help,h", "this text")("trace,t", po::value(&trace), "analyse this trace CSV instead of a bundle")(
      "analyzer,a", po::value(&names)->composing(), "analyzer to run (repeatable; 'dissect list analyzers')")(
      "param,p", po::value(&params)->composing(), "analyzer parameter: analyzer.key=value (repeatable)")(
      "json", "print each finding as one JSON object per line")(
      "write", "also write the findings to BUNDLE/findings.json");
  po::options_description hidden;
  hidden.add_options()("bundle", po::value(&bundle));
  po::positional_options_description pos;
  pos.add("bundle", 1);
  po::options_description all;
  all.add(opts).add(hidden);
  po::variables_map vm;
  if (const auto done = parse_options("analyze", args, opts, vm, &all, &pos)) return *done;
  if (bundle.empty() == trace.empty()) {
    std::cerr << "dissect analyze: give either a bundle directory or --trace FILE.csv\n" << opts << "\n";
    return kExitInvalid;
  }
  for (const auto& n : names)
    if (find_analyzer(n) == nullptr) {
      std::string msg = "dissect analyze: unknown analyzer '" + n + "'";
      const std::string guess = closest_match(n, analyzer_names());
      if (!guess.empty()) msg += "; did you mean '" + guess + "'?";
      std::cerr << msg << " (dissect list analyzers)\n";
      return kExitInvalid;
    }

  TraceSet traces;
  std::vector<AnalysisRequest> requests;
  try {
    if (!trace.empty()) {
      traces = import_trace_csv(trace);
      if (names.empty()) names = analyzer_names();
    } else {
      const Bundle b = read_bundle(bundle);
      traces = b.traces;
      // Damage is said, with what the analysis then uses.
      for (const auto& w : b.warnings) std::cerr << "dissect analyze: " << bundle << ": warning: " << w << "\n";
      if (!b.warnings.empty()) {
        std::size_t samples = 0;
        for (const auto& p : traces.points) samples += p.samples.size();
        std::cerr << "dissect analyze: " << bundle << ": analysing " << traces.points.size() << " points, " << samples
                  << " samples\n";
      }
      if (names.empty()) {
        // The spec's own analyzers, from the expanded spec the bundle records: a
        // bundle moved away from its spec and includes re-analyses the same way.
        BundleAnalysisPlan plan = plan_bundle_analysis(b.header, bundle);
        for (const auto& w : plan.warnings) std::cerr << "dissect analyze: " << bundle << ": warning: " << w << "\n";
        requests = std::move(plan.requests);
      }
    }
  } catch (const SpecError& e) {
    std::cerr << e.diagnostics().str();
    return kExitInvalid;
  } catch (const std::exception& e) {
    std::cerr << "dissect analyze: " << e.what() << "\n";
    return kExitInvalid;
  }
  for (const auto& n : names) requests.push_back({n, nlohmann::json::object()});
  try {
    for (const auto& p : params) {
      auto [key, value] = split_assignment(p, "--param");
      const auto dot = key.find('.');
      if (dot == std::string::npos) throw std::invalid_argument("--param '" + p + "': expected analyzer.key=value");
      bool used = false;
      for (auto& r : requests)
        if (r.analyzer == key.substr(0, dot)) {
          r.params[key.substr(dot + 1)] = value;
          used = true;
        }
      if (!used) throw std::invalid_argument("--param '" + p + "': analyzer '" + key.substr(0, dot) + "' is not run");
    }
  } catch (const std::invalid_argument& e) {
    std::cerr << "dissect analyze: " << e.what() << "\n";
    return kExitInvalid;
  }
  const auto findings = run_analyzers(traces, requests);
  print_findings(findings, vm.count("json") != 0);
  if (vm.count("write") && !bundle.empty()) {
    nlohmann::json fj = nlohmann::json::array();
    for (const auto& f : findings) fj.push_back(f.to_json());
    write_file_atomic(bundle + "/findings.json", nlohmann::json({{"findings", fj}}).dump(2) + "\n");
  }
  return kExitOk;
}

}  // namespace dissect::cli
