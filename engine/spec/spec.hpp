#pragma once
// A spec file, loaded: includes merged, --set overrides applied, the base
// experiment decoded and the sweep parsed. `expand()` turns it into points.
#include <cstdint>
#include <string>
#include <vector>

#include "engine/spec/experiment.hpp"
#include "engine/spec/spec_node.hpp"
#include "engine/spec/sweep.hpp"

namespace dissect {

inline constexpr int kSpecFormatVersion = 1;
inline constexpr std::uint64_t kDefaultMaxPoints = 100000;

// One sweep point: the experiment as it runs, and the axis values that made it.
struct Point {
  std::size_t id = 0;
  Experiment experiment;
  std::vector<std::pair<std::string, std::string>> axis_values;  // field -> value as written
};

struct SpecOverride {
  std::string key;    // dotted path
  std::string value;  // YAML text
};

struct LoadOptions {
  std::vector<SpecOverride> overrides;   // --set key=value
  std::uint64_t max_points = 0;          // 0: the spec's max_points, else kDefaultMaxPoints
};

struct Spec {
  std::string path;                     // as given on the command line
  std::string text;                     // the file verbatim
  std::vector<std::string> included;    // files merged in, in order
  SpecNode root;                        // merged tree (includes + overrides)
  Experiment base;                      // decoded without sweep values
  std::vector<SweepDimension> sweep;
  SweepOptions sweep_options;
  std::uint64_t max_points = kDefaultMaxPoints;
  std::uint64_t skipped_points = 0;  // invalid combinations left out (sweep.skip_invalid)
  // What expand() returns, kept from loading: load_spec decodes every point to
  // validate the spec, and a run takes them from here instead of decoding them
  // again. Empty for an adaptive or abstract spec and for a Spec put together by
  // hand; a Spec whose tree or sweep is changed after loading must expand() anew.
  std::vector<Point> expanded;

  // Points that run: the sweep's combinations less the skipped invalid ones.
  [[nodiscard]] std::uint64_t point_count() const { return sweep_point_count(sweep) - skipped_points; }
  [[nodiscard]] bool adaptive() const;
  // Every point of the (non-adaptive) sweep, decoded and checked. Throws
  // SpecError naming the axis value at fault.
  [[nodiscard]] std::vector<Point> expand() const;
  // Decodes one point from explicit axis values (the adaptive search uses
  // this to ask for points one at a time).
  [[nodiscard]] Point make_point(std::size_t id, const std::vector<std::pair<std::string, SpecNode>>& values) const;
};

// Loads and validates a spec file completely (every point is decoded), or
// throws SpecError with every problem found.
Spec load_spec(const std::string& path, const LoadOptions& options = {});
// Same, from text (tests, stdin).
Spec load_spec_text(const std::string& text, const std::string& name, const LoadOptions& options = {});

}  // namespace dissect
