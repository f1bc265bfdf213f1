#pragma once
// Deferred analyses of runs (RunOptions::defer_analysis) on the worker pool
// (engine/core/worker_pool.hpp), so that a batch of runs measures its next run while the
// last one is analysed: every analyzer of every run is a job of its own (one run's
// analyzers run side by side), and the last of a run's jobs finishes it (findings.json).
// Used from one thread (the one that runs the batch); the jobs run on the workers, and a
// wait for a run whose jobs are still queued runs them on the waiting thread instead (a
// wait never takes longer than analysing there would).
#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <exception>
#include <map>
#include <memory>
#include <mutex>

#include "engine/core/worker_pool.hpp"
#include "engine/run/runner.hpp"

namespace dissect {

class AnalysisQueue {
 public:
  AnalysisQueue() = default;
  ~AnalysisQueue();  // waits for the analyses still running
  AnalysisQueue(const AnalysisQueue&) = delete;
  AnalysisQueue& operator=(const AnalysisQueue&) = delete;

  // Starts analysing `out` (its `analysis`; done at once when there is none) under `key`,
  // which must be new, its jobs (and the work they spread over the pool) at `priority`:
  // soon for an analysis the caller will wait for next.
  void start(std::size_t key, RunOutcome out, workers::Priority priority = workers::Priority::normal);
  // Whether the analysis of `key` has finished (false for a key not started or taken).
  [[nodiscard]] bool done(std::size_t key) const;
  // Waits for the analysis of `key` and hands its outcome back: findings, expectations and
  // analysis_ms filled in, as run_spec returns them without defer_analysis. Rethrows what
  // finishing it threw (findings.json not written). `key` is forgotten. Jobs of it no worker
  // has started run here, their own work spread over the pool as soon.
  RunOutcome take(std::size_t key);
  // Waits for every analysis started.
  void wait_all();

 private:
  struct Entry {
    RunOutcome out;
    std::shared_ptr<RunAnalysis> analysis;      // null: nothing to analyse
    std::size_t jobs = 0;                       // analyzer jobs, at least one (finishing only)
    std::unique_ptr<std::atomic<bool>[]> claimed;  // per job: taken by a worker or the waiter
    std::size_t jobs_left = 0;
    bool done = false;
    std::exception_ptr job_error;  // the first a job threw (then no findings are written)
    std::exception_ptr error;
    workers::Priority priority = workers::Priority::normal;
  };
  // Runs job i of `e` unless it was claimed already.
  void run_job(const std::shared_ptr<Entry>& e, std::size_t i);

  mutable std::mutex mutex_;
  std::condition_variable changed_;
  std::map<std::size_t, std::shared_ptr<Entry>> entries_;
};

}  // namespace dissect
