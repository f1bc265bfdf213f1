#pragma once
// `dissect export accelsim`: a measured topology as a GPGPU-Sim / Accel-Sim
// configuration fragment (gpgpusim.config options), every option with the
// measurement it came from, or marked as a stated default where dissect did not
// measure it (docs/export.md). The trace-driven Accel-Sim reads the same
// gpgpusim.config, plus trace.config, where texture instructions get a fixed
// latency: that fragment is `trace`.
#include <cstdint>
#include <string>
#include <vector>

#include "engine/topology/topology_file.hpp"

namespace dissect {

struct AccelSimOption {
  std::string option;                 // "-gpgpu_cache:dl1"
  std::string value;                  // "S:4:128:482,L:T:m:L:L,A:256:8,16:0"
  std::vector<std::string> comments;  // where each part came from
  bool measured = false;              // false: every part is a stated default or the driver's
};

struct AccelSimSection {
  std::string title;
  std::vector<AccelSimOption> options;
};

// A cache as exported: sets x line x ways (per L2 sub-partition for the L2).
struct AccelSimGeometry {
  std::uint64_t sets = 0, line = 0, ways = 0;
  bool sector = false;
  bool sets_measured = false, ways_measured = false, line_measured = false, size_measured = false;
  std::uint64_t bytes() const { return sets * line * ways; }
};

struct AccelSimConfig {
  std::vector<AccelSimSection> gpgpusim;  // the gpgpusim.config fragment
  std::vector<AccelSimSection> trace;     // the trace.config fragment (trace-driven Accel-Sim)
  std::vector<std::string> not_exported;  // measured figures the format has no option for
  AccelSimGeometry l1, texture, constant, l2;
  std::uint64_t l2_sub_partitions = 0;  // n_mem x sub-partitions per channel
};

// Builds the configuration. Never invents a measurement: an unmeasured figure is a
// default stated in the option's comment ("[default]"); an undetermined one says why.
AccelSimConfig accelsim_config(const TopologyFile& topology);

// The files' text: a header naming the topology, then each section's options,
// each preceded by its comments.
std::string render_gpgpusim_config(const AccelSimConfig& config, const TopologyFile& topology);
std::string render_trace_config(const AccelSimConfig& config, const TopologyFile& topology);

}  // namespace dissect
