#include "engine/core/background_worker.hpp"

#include <array>
#include <cstdint>
#include <atomic>
#include <condition_variable>
#include <deque>
#include <memory>
#include <mutex>
#include <system_error>
#include <thread>

namespace dissect::background {
namespace {

class Worker {
 public:
  Worker() : thread_([this] { loop(); }) {}
  ~Worker() { finish(); }
  Worker(const Worker&) = delete;
  Worker& operator=(const Worker&) = delete;

  // A job given after finish() runs on a thread of its own.
  std::future<void> submit(std::function<void()> job) {
    std::unique_lock lock(mutex_);
    if (stopping_) {
      lock.unlock();
      return std::async(std::launch::async, std::move(job));
    }
    std::packaged_task<void()> task(std::move(job));
    std::future<void> done = task.get_future();
    jobs_.push_back(std::move(task));
    load_.fetch_add(1, std::memory_order_relaxed);
    lock.unlock();
    wake_.notify_one();
    return done;
  }

  // Jobs queued or running (a moment's view).
  [[nodiscard]] std::size_t load() const { return load_.load(std::memory_order_relaxed); }

  // Runs the jobs still queued (a bundle's header is never dropped), then stops (once).
  void finish() {
    {
      const std::lock_guard lock(mutex_);
      if (stopping_) return;
      stopping_ = true;
    }
    wake_.notify_one();
    thread_.join();
  }

 private:
  void loop() {
    for (;;) {
      std::packaged_task<void()> job;
      {
        std::unique_lock lock(mutex_);
        wake_.wait(lock, [this] { return stopping_ || !jobs_.empty(); });
        if (jobs_.empty()) return;  // stopping, nothing left
        job = std::move(jobs_.front());
        jobs_.pop_front();
      }
      job();  // an exception goes into the job's future
      load_.fetch_sub(1, std::memory_order_relaxed);
    }
  }

  std::mutex mutex_;
  std::condition_variable wake_;
  std::deque<std::packaged_task<void()>> jobs_;
  bool stopping_ = false;
  std::atomic<std::size_t> load_{0};
  std::thread thread_;  // last: starts when the rest is ready
};

// Enough that a bundle storing its last points, the next one and a third rarely share one.
constexpr std::size_t kLanes = 4;

std::atomic<bool> g_lanes_started{false};

// The process's lane `i`, or null when no thread could be started.
Worker* worker(std::size_t i) {
  static const std::array<std::unique_ptr<Worker>, kLanes> lanes = [] {
    std::array<std::unique_ptr<Worker>, kLanes> w;
    for (auto& l : w) try {
        l = std::make_unique<Worker>();
      } catch (const std::system_error&) {
        l = nullptr;
      }
    return w;
  }();
  g_lanes_started.store(true, std::memory_order_release);
  return lanes[i % kLanes].get();
}

std::atomic<std::size_t> g_next_lane{0};

}  // namespace

void warm_up() { (void)worker(0); }

void finish() {
  if (!g_lanes_started.load(std::memory_order_acquire)) return;  // never started: nothing to finish
  for (std::size_t i = 0; i < kLanes; ++i)
    if (Worker* w = worker(i)) w->finish();
}

std::size_t next_lane() {
  // An idle lane, the next in turn first; else the least loaded: a bundle's header queued
  // behind an earlier bundle's last stores (a sets step writes a trace of a hundred MB) would
  // hold up its kernels' artifacts, which its run waits for.
  const std::size_t first = g_next_lane.fetch_add(1);
  std::size_t best = first % kLanes, best_load = SIZE_MAX;
  for (std::size_t k = 0; k < kLanes; ++k) {
    const std::size_t lane = (first + k) % kLanes;
    const Worker* w = worker(lane);
    const std::size_t load = w != nullptr ? w->load() : SIZE_MAX;  // no thread: each job on its own
    if (load < best_load) best = lane, best_load = load;
    if (load == 0) break;
  }
  return best;
}

std::future<void> run(std::function<void()> job, std::size_t lane) {
  if (Worker* w = worker(lane)) return w->submit(std::move(job));
  return std::async(std::launch::async, std::move(job));
}

}  // namespace dissect::background
