#include "engine/topology/topology_progress.hpp"

#include <map>

namespace dissect {

TopologyProgress::TopologyProgress(std::FILE* to, bool lines, bool status_line, std::vector<std::string> labels,
                                   std::vector<std::string> kinds)
    : to_(to),
      lines_(lines),
      status_line_(status_line),
      labels_(std::move(labels)),
      kinds_(std::move(kinds)),
      measured_ms_(labels_.size(), -1) {}

void TopologyProgress::clear_status() {
  if (!status_shown_) return;
  std::fprintf(to_, "\r\033[K");
  status_shown_ = false;
}

void TopologyProgress::starting(std::size_t index, double elapsed_s) {
  current_ = index;
  if (!status_line_ || index >= labels_.size()) return;
  std::fprintf(to_, "\r\033[K[%zu/%zu] %s (%.1f s", index + 1, labels_.size(), labels_[index].c_str(), elapsed_s);
  if (const double left = seconds_left(); left >= 0.5) std::fprintf(to_, ", about %.0f s left", left);
  std::fprintf(to_, ")");
  std::fflush(to_);
  status_shown_ = true;
}

void TopologyProgress::measured(std::size_t index, double wall_ms) {
  if (index < measured_ms_.size()) measured_ms_[index] = wall_ms;
}

double TopologyProgress::seconds_left() const {
  std::map<std::string, std::pair<double, std::size_t>> by_kind;  // sum, count
  double sum = 0;
  std::size_t n = 0;
  for (std::size_t i = 0; i < measured_ms_.size(); ++i) {
    if (measured_ms_[i] < 0) continue;
    auto& k = by_kind[kinds_[i]];
    k.first += measured_ms_[i], ++k.second;
    sum += measured_ms_[i], ++n;
  }
  if (n == 0) return 0;
  double left_ms = 0;
  for (std::size_t i = current_; i < measured_ms_.size(); ++i) {
    if (measured_ms_[i] >= 0) continue;
    const auto it = by_kind.find(kinds_[i]);
    left_ms += it != by_kind.end() ? it->second.first / static_cast<double>(it->second.second)
                                   : sum / static_cast<double>(n);
  }
  return left_ms / 1000;
}

void TopologyProgress::committed(std::size_t index, const nlohmann::json& exp, double elapsed_s) {
  if (!lines_ || index >= labels_.size()) return;
  clear_status();
  const std::string status = exp.value("status", std::string("?"));
  std::fprintf(to_, "[%2zu/%zu] %-30s ", index + 1, labels_.size(), labels_[index].c_str());
  if (exp.contains("wall_ms") && exp["wall_ms"].is_number()) {
    const double wall = exp["wall_ms"].get<double>() / 1000;
    std::fprintf(to_, "%6.2f s (%4.1f%% of %.1f s so far)  kernels %.2f s  analysis %.2f s", wall,
                 elapsed_s > 0 ? 100 * wall / elapsed_s : 0.0, elapsed_s, exp.value("kernel_ms", 0.0) / 1000,
                 exp.value("analysis_ms", 0.0) / 1000);
    if (status != "complete") std::fprintf(to_, "  (%s)", status.c_str());
  } else {
    std::fprintf(to_, "%s", status.c_str());
    if (exp.contains("reason") && exp["reason"].is_string())
      std::fprintf(to_, ": %s", exp["reason"].get<std::string>().c_str());
  }
  if (const double left = seconds_left(); left >= 0.5) std::fprintf(to_, "  about %.0f s left", left);
  std::fprintf(to_, "\n");
  std::fflush(to_);
}

void TopologyProgress::finished(double elapsed_s, double kernel_ms, double analysis_ms, double wait_ms) {
  clear_status();
  if (lines_)
    std::fprintf(to_, "%zu steps in %.1f s: kernels %.2f s; analysis %.2f s beside the measurements, %.2f s waited for\n",
                 labels_.size(), elapsed_s, kernel_ms / 1000, analysis_ms / 1000, wait_ms / 1000);
  std::fflush(to_);
}

}  // namespace dissect
