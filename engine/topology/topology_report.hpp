#pragma once
// The topology as one report: the topology tables first, then every step's
// experiment with its plots (the report API, engine/report/report_writer.hpp).
// `dissect topology` writes it to <out>/report at the end of a run, and
// `dissect report DIR` writes it again for a topology directory (DIR holds
// topology.json), e.g. to render the plots on a machine that has gnuplot.
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "engine/report/report_writer.hpp"

namespace dissect {

// True when dir is the output directory of `dissect topology` (holds topology.json).
bool is_topology_dir(const std::string& dir);

struct TopologyReport {
  report::ReportResult result;
  std::vector<std::string> skipped;  // step bundles that could not be read, with why
};

// Writes the report of the topology run in topology_dir (its topology.json and
// step bundles) to options.out_dir. Steps whose bundle is missing or unreadable
// (failed, interrupted) are listed in the experiment table and left out of the
// plots. Throws std::runtime_error when topology.json cannot be read.
TopologyReport write_topology_report(const std::string& topology_dir, const report::ReportOptions& options);

}  // namespace dissect
