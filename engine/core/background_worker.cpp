#include "engine/core/background_worker.hpp"

#include <array>
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
  ~Worker() {
    {
      const std::lock_guard lock(mutex_);
      stopping_ = true;
    }
    wake_.notify_one();
    thread_.join();  // after the jobs still queued: a bundle's header is never dropped
  }
  Worker(const Worker&) = delete;
  Worker& operator=(const Worker&) = delete;

  std::future<void> submit(std::function<void()> job) {
    std::packaged_task<void()> task(std::move(job));
    std::future<void> done = task.get_future();
    {
      const std::lock_guard lock(mutex_);
      jobs_.push_back(std::move(task));
    }
    wake_.notify_one();
    return done;
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
    }
  }

  std::mutex mutex_;
  std::condition_variable wake_;
  std::deque<std::packaged_task<void()>> jobs_;
  bool stopping_ = false;
  std::thread thread_;  // last: starts when the rest is ready
};

// Enough that a bundle storing its last points, the next one and a third rarely share one.
constexpr std::size_t kLanes = 4;

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
  return lanes[i % kLanes].get();
}

std::atomic<std::size_t> g_next_lane{0};

}  // namespace

void warm_up() { (void)worker(0); }

std::size_t next_lane() { return g_next_lane.fetch_add(1) % kLanes; }

std::future<void> run(std::function<void()> job, std::size_t lane) {
  if (Worker* w = worker(lane)) return w->submit(std::move(job));
  return std::async(std::launch::async, std::move(job));
}

}  // namespace dissect::background
