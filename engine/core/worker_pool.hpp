#pragma once
// The process's pool of worker threads for work that runs side by side with the thread
// that drives the device: a topology's analyses while later steps measure, NVRTC compiles
// ahead of need, a report's plots. One thread per core but one (that one drives the
// device), at least one; started on first use. Jobs run in the order given; a job never
// waits for another job of the pool (what waits is the caller's thread), so the pool
// cannot deadlock on itself.
#include <cstddef>
#include <functional>
#include <future>
#include <memory>
#include <type_traits>
#include <utility>

namespace dissect::workers {

// Threads of the pool (DISSECT_WORKERS overrides the default: e.g. 1 for a sequential
// check).
std::size_t size();

// Runs `job` on a worker; the future holds its outcome (an exception it threw included).
// When no thread can be had, it runs on a thread of its own (std::async).
std::future<void> run(std::function<void()> job);

// The same with a result.
template <class F>
auto submit(F f) -> std::future<std::invoke_result_t<F&>> {
  using R = std::invoke_result_t<F&>;
  auto task = std::make_shared<std::packaged_task<R()>>(std::move(f));
  std::future<R> result = task->get_future();
  run([task] { (*task)(); });
  return result;
}

}  // namespace dissect::workers
