#include "engine/run/analysis_queue.hpp"

#include <algorithm>
#include <utility>

#include "engine/core/worker_pool.hpp"

namespace dissect {

AnalysisQueue::~AnalysisQueue() { wait_all(); }

void AnalysisQueue::start(std::size_t key, RunOutcome out, workers::Priority priority) {
  auto e = std::make_shared<Entry>();
  e->priority = priority;
  e->analysis = out.analysis;
  e->out = std::move(out);
  e->jobs = std::max<std::size_t>(1, e->analysis ? analysis_jobs(*e->analysis) : 0);
  e->claimed = std::make_unique<std::atomic<bool>[]>(e->jobs);
  e->jobs_left = e->jobs;
  {
    const std::lock_guard lock(mutex_);
    entries_[key] = e;
  }
  for (std::size_t i = 0; i < e->jobs; ++i) workers::run([this, e, i] { run_job(e, i); }, priority);
}

void AnalysisQueue::run_job(const std::shared_ptr<Entry>& e, std::size_t i) {
  if (e->claimed[i].exchange(true)) return;  // the other side has it
  // An analyzer's failure is a finding already (run_analyzers); anything else a job throws
  // (no memory, say) is the run's error, and the job still counts as done.
  std::exception_ptr job_error;
  try {
    if (e->analysis && i < analysis_jobs(*e->analysis)) run_analysis_job(*e->analysis, i);
  } catch (...) {
    job_error = std::current_exception();
  }
  {
    const std::lock_guard lock(mutex_);
    if (job_error && !e->job_error) e->job_error = job_error;
    if (--e->jobs_left != 0) return;
  }
  // The last job of the run: every analyzer is in; the findings are written here.
  std::exception_ptr error;
  {
    const std::lock_guard lock(mutex_);
    error = e->job_error;
  }
  if (!error) try {
      finish_analysis(e->out);
    } catch (...) {
      error = std::current_exception();
    }
  // Notified under the lock: a waiter that wakes may destroy the queue once it is released.
  const std::lock_guard lock(mutex_);
  e->error = error;
  e->done = true;
  changed_.notify_all();
}

bool AnalysisQueue::done(std::size_t key) const {
  const std::lock_guard lock(mutex_);
  const auto it = entries_.find(key);
  return it != entries_.end() && it->second->done;
}

RunOutcome AnalysisQueue::take(std::size_t key) {
  std::shared_ptr<Entry> e;
  {
    const std::lock_guard lock(mutex_);
    const auto it = entries_.find(key);
    if (it == entries_.end()) return {};
    e = it->second;
  }
  // Jobs no worker has started yet run here, rather than after what is queued before them,
  // and what they spread over the pool goes before the analyses nobody waits for.
  {
    const workers::PriorityScope waited_for(std::max(e->priority, workers::Priority::soon));
    for (std::size_t i = 0; i < e->jobs; ++i) run_job(e, i);
  }
  {
    std::unique_lock lock(mutex_);
    changed_.wait(lock, [&] { return e->done; });
    entries_.erase(key);
  }
  if (e->error) std::rethrow_exception(e->error);
  return std::move(e->out);
}

void AnalysisQueue::wait_all() {
  std::unique_lock lock(mutex_);
  changed_.wait(lock, [&] {
    for (const auto& [key, e] : entries_)
      if (!e->done) return false;
    return true;
  });
}

}  // namespace dissect
