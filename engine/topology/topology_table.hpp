#pragma once
// The topology result (topology.json) as tables: the rows are built once and
// rendered twice, padded for a terminal (`dissect topology`) and as Markdown
// (the topology report, topology_report.cpp).
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace dissect {

struct TopologyTable {
  std::string title;
  std::vector<std::string> columns;
  std::vector<std::vector<std::string>> rows;
};

// One line: device, mode and wall/kernel/compile times.
std::string topology_headline(const nlohmann::json& result);
// Caches, as seed 004 Tables 5.4-5.9 with more columns.
TopologyTable topology_cache_table(const nlohmann::json& result);
// TLB levels and page size; L2 hit levels; bandwidths; experiments that did not complete.
TopologyTable topology_tlb_table(const nlohmann::json& result);
// Per TLB level whose sets the steps measured but could not name: "TLB L3 sets:
// undetermined: <why>" (the table shows "?").
std::vector<std::string> topology_tlb_structure_lines(const nlohmann::json& result);
// "page size: 2 MiB (scattered frames); over one allocation ...", "page size:
// undetermined: why", or "" without a page step.
std::string topology_page_line(const nlohmann::json& result);
// "L2 from every SM at once (100 SMs, lines of their own): 30 MiB; one SM: 20 MiB;
// driver: 40 MiB", the step's note where it measured none, or "" where it did not run.
std::string topology_l2_whole_line(const nlohmann::json& result);
// "L2 partitions: <the partition_map finding's summary>", "L2 partitions: undetermined:
// <why>", or "" where the step did not run.
std::string topology_l2_partition_line(const nlohmann::json& result);
// "L2 far lines: ...": whether far lines are held twice (caches.l2.partition_copies), or "".
std::string topology_l2_copies_line(const nlohmann::json& result);
// Per cache, what its sets step saw past the capacity ("L1 data past its capacity: ...") and
// what its conflict step saw at large strides ("L1 data at large strides: ...").
std::vector<std::string> topology_cache_structure_lines(const nlohmann::json& result);
TopologyTable topology_bandwidth_table(const nlohmann::json& result);
TopologyTable topology_experiment_table(const nlohmann::json& result, bool incomplete_only);

// One line naming the steps that ran while the SM clock moved or other processes used the
// GPU (topology.json "conditions"); "" when none did.
std::string topology_conditions_line(const nlohmann::json& result);

// Everything above for a terminal.
std::string topology_table(const nlohmann::json& result);

}  // namespace dissect
