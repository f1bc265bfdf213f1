#pragma once
// What `dissect topology` says on stderr while it runs: a line per step once its analysis
// is in (its time, its share of the time so far, kernels and analysis), with an estimate of
// what is left; on a terminal also a status line naming the step being measured.
#include <cstdio>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace dissect {

class TopologyProgress {
 public:
  // `kinds`: per step of the plan, what kind of step it is (its id without the cache:
  // "size", "sets"), for the estimate: a step is expected to take what the steps of its
  // kind took so far, else what an average step took. `lines`: a line per step;
  // `status_line`: the step being measured, rewritten in place (a terminal).
  TopologyProgress(std::FILE* to, bool lines, bool status_line, std::vector<std::string> labels,
                   std::vector<std::string> kinds);
  // Step `index` starts measuring, `elapsed_s` into the topology.
  void starting(std::size_t index, double elapsed_s);
  // Step `index` has measured (wall_ms: its run); the estimate learns from it.
  void measured(std::size_t index, double wall_ms);
  // Step `index` is final (`exp`: its topology.json entry): its line.
  void committed(std::size_t index, const nlohmann::json& exp, double elapsed_s);
  // The end: clears the status line; a last line with the totals.
  void finished(double elapsed_s, double kernel_ms, double analysis_ms, double wait_ms);

  // Seconds the steps not yet measured are expected to take (0 before any was measured).
  [[nodiscard]] double seconds_left() const;

 private:
  void clear_status();
  std::FILE* to_;
  bool lines_, status_line_;
  std::vector<std::string> labels_, kinds_;
  std::vector<double> measured_ms_;  // per step; negative: not measured yet
  std::size_t current_ = 0;          // the step being measured
  bool status_shown_ = false;
};

}  // namespace dissect
