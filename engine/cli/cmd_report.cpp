#include <boost/program_options.hpp>
#include <iostream>

#include "engine/cli/cli.hpp"
#include "engine/cli/parse_options.hpp"
#include "engine/report/report_writer.hpp"
#include "engine/topology/topology_report.hpp"

namespace dissect::cli {
namespace po = boost::program_options;

int cmd_report(const Args& args) {
  po::options_description opts(
      "Usage: dissect report BUNDLE... [options]\n"
      "       dissect report TOPOLOGY_DIR [options]\n\n"
      "Writes report.md with each bundle's run, findings and expectations, and the plots that fit\n"
      "each experiment: latency over N with the detected knee, the fine-grained trace as a heatmap,\n"
      "the missed-line staircase, the TLB staircase, latency over stride, bandwidth over ILP and\n"
      "warps, the Saavedra N x s grid (docs/report.md). Plots are rendered by gnuplot to SVG and\n"
      "PNG; their data files and .gp scripts are written next to them, so they can be restyled and\n"
      "redrawn with 'gnuplot STEM.gp'. Without gnuplot, data and scripts are still written.\n"
      "Reads bundles only (no GPU); run 'dissect analyze BUNDLE --write' first for findings.\n"
      "Given the output directory of 'dissect topology' (it holds topology.json), writes the\n"
      "topology report: its tables, then every step's experiment (default --out: DIR/report).\n\nOptions");
  std::vector<std::string> bundles;
  std::string out, gnuplot;
  std::size_t window = 0, rows = 0;
  double timeout_s = 60;
  opts.add_options()("help,h", "this text")(
      "out,o", po::value(&out), "report directory (default: BUNDLE/report for one bundle; required for several)")(
      "gnuplot", po::value(&gnuplot), "gnuplot to run (path or name; default $DISSECT_GNUPLOT, else gnuplot on PATH)")(
      "no-render", "write data files and scripts only")(
      "window", po::value(&window), "accesses per point in the heatmap (default 512)")(
      "max-rows", po::value(&rows), "points (rows) in the heatmap, evenly spread (default 64)")(
      "timeout", po::value(&timeout_s), "seconds each gnuplot script may take (default 60)");
  po::options_description hidden;
  hidden.add_options()("bundle", po::value(&bundles)->composing());
  po::positional_options_description pos;
  pos.add("bundle", -1);
  po::options_description all;
  all.add(opts).add(hidden);
  po::variables_map vm;
  if (const auto done = parse_options("report", args, opts, vm, &all, &pos)) return *done;
  if (bundles.empty()) {
    std::cerr << "dissect report: give at least one bundle directory\n" << opts << "\n";
    return kExitInvalid;
  }
  if (out.empty()) {
    if (bundles.size() > 1) {
      std::cerr << "dissect report: several bundles need --out DIR\n";
      return kExitInvalid;
    }
    out = bundles.front() + "/report";
  }
  if (!(timeout_s > 0)) {
    std::cerr << "dissect report: --timeout must be positive\n";
    return kExitInvalid;
  }
  report::ReportOptions options;
  options.out_dir = out;
  options.gnuplot = gnuplot;
  options.render = vm.count("no-render") == 0;
  options.timeout = std::chrono::milliseconds(static_cast<long long>(timeout_s * 1000));
  if (window > 0) options.limits.window = window;
  if (rows > 0) options.limits.max_rows = rows;

  report::ReportResult r;
  try {
    if (bundles.size() == 1 && is_topology_dir(bundles.front())) {
      auto t = write_topology_report(bundles.front(), options);
      for (const auto& s : t.skipped) std::cerr << "dissect report: " << s << "\n";
      r = std::move(t.result);
    } else {
      for (const auto& b : bundles)
        if (is_topology_dir(b)) {
          std::cerr << "dissect report: " << b << " is a topology directory; report it on its own\n";
          return kExitInvalid;
        }
      r = report::write_report(bundles, options);
    }
  } catch (const std::exception& e) {
    std::cerr << "dissect report: " << e.what() << "\n";
    return kExitInvalid;
  }
  if (!r.gnuplot_found)
    std::cerr << "dissect report: plots not rendered: " << r.gnuplot_message
              << "; data files and gnuplot scripts are written\n";
  for (const auto& w : r.warnings) std::cerr << "dissect report: " << w << "\n";
  std::cout << r.report_md << ": " << r.plots.size() << " plots";
  if (r.gnuplot_found) std::cout << ", " << r.rendered() << " rendered";
  std::cout << "\n";
  return kExitOk;
}

}  // namespace dissect::cli
