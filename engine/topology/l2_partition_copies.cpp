#include "engine/topology/l2_partition_copies.hpp"

#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include "engine/spec/units.hpp"

namespace dissect {
namespace {

// A model's predictions as shares of L: O / L, and W / L from whole_low to whole_high
// (equal where W is one figure).
struct Model {
  const char* name;
  const char* says;
  double one_sm_share;
  double whole_low, whole_high;
};

std::vector<Model> models_for(double p) {
  return {{"shared", "far lines live at home only: one SM fills the whole L2", 1.0, 1.0, 1.0},
          {"copies", "far lines are copied into the reading SM's partition", 1.0 / p, p / (2 * p - 1), 1.0},
          {"private", "lines live in the reading SM's partition only", 1.0 / p, 1.0, 1.0}};
}

constexpr double kLow = 1 - kPartitionCopiesBelow, kHigh = 1 + kPartitionCopiesAbove;

// A measured figure against a predicted band [low, high] (one value where equal), each end
// with the knee's tolerance.
bool within(double measured, double low, double high) { return measured >= kLow * low && measured <= kHigh * high; }

std::string fmt(double v) {
  char b[32];
  std::snprintf(b, sizeof b, "%.2f", v);
  return b;
}

}  // namespace

std::optional<nlohmann::json> read_partition_copies(const PartitionCopiesInput& in) {
  if (!in.one_sm_bytes || !in.whole_gpu_bytes || !in.partitions || *in.partitions < 2 || *in.one_sm_bytes == 0 ||
      *in.whole_gpu_bytes == 0)
    return std::nullopt;
  const double o = static_cast<double>(*in.one_sm_bytes), w = static_cast<double>(*in.whole_gpu_bytes);
  const double p = static_cast<double>(*in.partitions);
  const double ratio = w / o;
  const bool with_driver = in.driver_bytes && *in.driver_bytes > 0;
  const double l = with_driver ? static_cast<double>(*in.driver_bytes) : 0;
  nlohmann::json j;
  j["ratio"] = ratio;
  j["partitions"] = *in.partitions;
  j["tolerance"] = {{"below", kPartitionCopiesBelow}, {"above", kPartitionCopiesAbove}};
  j["method"] = with_driver ? "both sizes against the driver's L2" : "the ratio of the two sizes (no driver figure)";
  j["models"] = nlohmann::json::array();
  std::vector<const Model*> fits;
  const auto models = models_for(p);
  for (const Model& m : models) {
    const double r_low = m.whole_low / m.one_sm_share, r_high = m.whole_high / m.one_sm_share;
    nlohmann::json mj{{"name", m.name}};
    if (r_low == r_high) mj["ratio"] = r_low;
    else mj["ratio_range"] = {r_low, r_high};
    bool fit = false;
    if (with_driver) {
      mj["one_sm_bytes"] = m.one_sm_share * l;
      if (m.whole_low == m.whole_high) mj["whole_gpu_bytes"] = m.whole_low * l;
      else mj["whole_gpu_range_bytes"] = {m.whole_low * l, m.whole_high * l};
      fit = within(o, m.one_sm_share * l, m.one_sm_share * l) && within(w, m.whole_low * l, m.whole_high * l);
    } else {
      // Each size may read kBelow under or kAbove over its own prediction.
      fit = within(ratio, r_low / kHigh, r_high / kLow);
    }
    mj["fits"] = fit;
    j["models"].push_back(mj);
    if (fit) fits.push_back(&m);
  }
  std::string measured = "every SM " + format_bytes(*in.whole_gpu_bytes) + ", one SM " + format_bytes(*in.one_sm_bytes) +
                         " (" + fmt(ratio) + " x)" +
                         (with_driver ? ", driver " + format_bytes(*in.driver_bytes) : std::string()) + ", " +
                         std::to_string(*in.partitions) + " partitions";
  // The sizes' own confidence travels with the verdict (a knee read from a gradual onset
  // scores low even where it repeats from run to run).
  if (in.one_sm_confidence || in.whole_gpu_confidence) {
    const double c = std::min(in.one_sm_confidence.value_or(1.0), in.whole_gpu_confidence.value_or(1.0));
    j["sizes_confidence"] = c;
    measured += "; sizes read with confidence " + fmt(c);
  }
  if (fits.size() == 1) {
    j["verdict"] = fits.front()->name;
    std::string held;
    if (std::string(fits.front()->name) == "copies") {
      const double twice = std::max(0.0, (with_driver ? l / w : p / ratio) - 1);
      j["held_twice_share"] = twice;
      char b[96];
      std::snprintf(b, sizeof b, " (about %.0f%% of the lines held twice)", 100 * twice);
      held = b;
    }
    j["summary"] = std::string(fits.front()->says) + held + ": " + measured;
  } else {
    j["verdict"] = "undetermined";
    const std::string why = fits.empty() ? "no model fits"
                                         : std::string("two models fit (") + fits[0]->name + ", " + fits[1]->name + ")";
    j["summary"] = why + ": " + measured;
  }
  return j;
}

}  // namespace dissect
