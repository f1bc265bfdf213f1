#pragma once
// The process's pool of worker threads for work that runs side by side with the thread
// that drives the device: a topology's analyses while later steps measure, NVRTC compiles
// ahead of need, a report's plots. One thread per core but one (that one drives the
// device), at least one; started on first use. Jobs of one priority run in the order given. A
// job waits only for jobs it started itself (an analyzer's run_all on a worker): Job::get runs
// a job no worker has started on the waiting thread, so a wait is only ever for a job already
// running, which waits on nothing of its caller's, and the pool cannot deadlock on itself.
#include <atomic>
#include <chrono>
#include <cstddef>
#include <exception>
#include <functional>
#include <future>
#include <memory>
#include <stdexcept>
#include <type_traits>
#include <utility>
#include <vector>

namespace dissect::workers {

// Threads of the pool (DISSECT_WORKERS overrides the default: e.g. 1 for a sequential
// check).
std::size_t size();

// Whether the calling thread is one of the pool's (a Job's work may be run by the thread
// that asks for its result instead: work that only pays off beside others can skip itself).
bool on_worker();

// urgent: work the thread that drives the device waits for (a launch's samples decoded
// side by side); workers take it before any other job. soon: work the device's thread will
// wait for next (the analysis the next step is sized from); taken before normal jobs
// (analyses beside later steps, compiles ahead, plots). The workers run at a lower priority
// than the process's other threads.
enum class Priority { normal, soon, urgent };

// The priority of the job the calling thread runs (normal outside any), or the one a
// PriorityScope set: what the jobs it starts get unless they say otherwise, so that an
// analysis that is waited for spreads its own work over the pool at its priority.
Priority current_priority();

// Sets current_priority() for the calling thread while it lives.
class PriorityScope {
 public:
  explicit PriorityScope(Priority p);
  ~PriorityScope();
  PriorityScope(const PriorityScope&) = delete;
  PriorityScope& operator=(const PriorityScope&) = delete;

 private:
  Priority before_;
};

// Runs `job` on a worker; the future holds its outcome (an exception it threw included).
// When no thread can be had, it runs on a thread of its own (std::async).
std::future<void> run(std::function<void()> job, Priority priority = current_priority());

// Runs the jobs still queued and stops the workers; later jobs run on threads of their own.
// main() calls it before it returns: the pool itself lives until static objects are
// destroyed, and a job it ran then could use one destroyed before it (a registry built
// after the pool).
void finish();

// The same with a result.
template <class F>
auto submit(F f) -> std::future<std::invoke_result_t<F&>> {
  using R = std::invoke_result_t<F&>;
  auto task = std::make_shared<std::packaged_task<R()>>(std::move(f));
  std::future<R> result = task->get_future();
  run([task] { (*task)(); });
  return result;
}

// Work started on the pool whose result one consumer will ask for: whoever comes first runs
// it, a worker or the thread that asks (get) before any worker took it up, which then does
// it itself instead of waiting for the jobs queued before it.
template <class R>
class Job {
 public:
  explicit Job(std::function<R()> work) : work_(std::move(work)), result_(promise_.get_future()) {}
  Job(const Job&) = delete;
  Job& operator=(const Job&) = delete;

  // Runs the work unless it was taken up already; true when this call ran it.
  bool run() {
    if (claimed_.exchange(true)) return false;
    try {
      promise_.set_value(work_());
    } catch (...) {
      promise_.set_exception(std::current_exception());
    }
    work_ = nullptr;
    return true;
  }
  // Calls the work off unless it was taken up already (get then throws); true where it did.
  bool cancel() {
    if (claimed_.exchange(true)) return false;
    promise_.set_exception(std::make_exception_ptr(std::runtime_error("cancelled")));
    work_ = nullptr;
    return true;
  }
  // The result, once there (once: it is moved out): run here if nobody took the work up
  // yet. Rethrows what the work threw.
  R get() {
    run();
    return result_.get();
  }
  [[nodiscard]] bool ready() const { return result_.wait_for(std::chrono::seconds(0)) == std::future_status::ready; }

 private:
  std::function<R()> work_;
  std::atomic<bool> claimed_{false};
  std::promise<R> promise_;
  std::future<R> result_;
};

// Queues `work` on the pool as a Job.
template <class R>
std::shared_ptr<Job<R>> start(std::function<R()> work, Priority priority = current_priority()) {
  auto job = std::make_shared<Job<R>>(std::move(work));
  run([job] { job->run(); }, priority);
  return job;
}

// Runs every task side by side on the pool, the calling thread taking up those no worker
// has started, and returns their results in order. Every task has finished before the
// first exception one threw is rethrown: tasks may refer to the caller's locals.
template <class R>
std::vector<R> run_all(std::vector<std::function<R()>> tasks, Priority priority = current_priority()) {
  std::vector<std::shared_ptr<Job<R>>> jobs;
  jobs.reserve(tasks.size());
  for (auto& t : tasks) jobs.push_back(start<R>(std::move(t), priority));
  std::vector<R> results;
  results.reserve(jobs.size());
  std::exception_ptr failure;
  for (auto& j : jobs) {
    try {
      results.push_back(j->get());
    } catch (...) {
      if (!failure) failure = std::current_exception();
    }
  }
  if (failure) std::rethrow_exception(failure);
  return results;
}

}  // namespace dissect::workers
