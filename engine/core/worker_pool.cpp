#include "engine/core/worker_pool.hpp"

#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <condition_variable>
#include <cstdlib>
#include <deque>
#include <mutex>
#include <string>
#include <system_error>
#include <thread>
#include <vector>

namespace dissect::workers {
namespace {

thread_local bool on_pool_thread = false;  // set by each thread of the pool
thread_local Priority running_priority = Priority::normal;  // current_priority()

std::size_t wanted_threads() {
  if (const char* v = std::getenv("DISSECT_WORKERS"); v != nullptr && *v != '\0') {
    try {
      return std::clamp<std::size_t>(std::stoul(v), 1, 256);
    } catch (const std::exception&) {
      // Not a number: the default.
    }
  }
  const unsigned cores = std::thread::hardware_concurrency();
  return cores > 1 ? cores - 1 : 1;
}

class Pool {
 public:
  explicit Pool(std::size_t n) {
    try {
      for (std::size_t i = 0; i < n; ++i) threads_.emplace_back([this] { loop(); });
    } catch (const std::system_error&) {
      // Fewer threads than asked for; none at all: run() starts one per job.
    }
  }
  ~Pool() { finish(); }
  Pool(const Pool&) = delete;
  Pool& operator=(const Pool&) = delete;

  [[nodiscard]] std::size_t threads() const { return threads_.size(); }

  // A job given after finish() (or with no thread at all) runs on a thread of its own.
  std::future<void> submit(std::function<void()> job, Priority priority) {
    std::unique_lock lock(mutex_);
    if (stopping_ || threads_.empty()) {
      lock.unlock();
      return std::async(std::launch::async, std::move(job));
    }
    std::packaged_task<void()> task(std::move(job));
    std::future<void> done = task.get_future();
    queue(priority).push_back(std::move(task));
    lock.unlock();
    wake_.notify_one();
    return done;
  }

  // Runs the jobs still queued, then stops the threads (once).
  void finish() {
    {
      const std::lock_guard lock(mutex_);
      if (stopping_) return;
      stopping_ = true;
    }
    wake_.notify_all();
    for (auto& t : threads_) t.join();
  }

 private:
  void loop() {
    on_pool_thread = true;
    // The thread that drives the device goes first where the cores are all busy: its host
    // work between launches is on the path of the wall time, the analyses are not.
    lower_priority();
    for (;;) {
      std::packaged_task<void()> job;
      Priority priority = Priority::normal;
      {
        std::unique_lock lock(mutex_);
        wake_.wait(lock, [this] { return stopping_ || !urgent_.empty() || !soon_.empty() || !jobs_.empty(); });
        priority = !urgent_.empty() ? Priority::urgent : !soon_.empty() ? Priority::soon : Priority::normal;
        auto& from = queue(priority);
        if (from.empty()) return;  // stopping, nothing left
        job = std::move(from.front());
        from.pop_front();
      }
      running_priority = priority;
      job();  // an exception goes into the job's future
      running_priority = Priority::normal;
    }
  }

  std::deque<std::packaged_task<void()>>& queue(Priority p) {
    return p == Priority::urgent ? urgent_ : p == Priority::soon ? soon_ : jobs_;
  }

  // This thread's nice value raised by kWorkerNice above the process's (Linux: per thread).
  static void lower_priority() {
#ifdef __linux__
    const auto tid = static_cast<id_t>(::syscall(SYS_gettid));
    errno = 0;
    const int now = ::getpriority(PRIO_PROCESS, tid);
    if (errno == 0) (void)::setpriority(PRIO_PROCESS, tid, std::min(now + kWorkerNice, 19));
#endif
  }
  static constexpr int kWorkerNice = 5;
  std::mutex mutex_;
  std::condition_variable wake_;
  std::deque<std::packaged_task<void()>> urgent_;  // taken before any other
  std::deque<std::packaged_task<void()>> soon_;    // then these
  std::deque<std::packaged_task<void()>> jobs_;
  bool stopping_ = false;
  std::vector<std::thread> threads_;  // last: started when the rest is ready
};

std::atomic<bool> g_pool_started{false};

Pool& pool() {
  static Pool p(wanted_threads());
  g_pool_started.store(true, std::memory_order_release);
  return p;
}

}  // namespace

std::size_t size() { return std::max<std::size_t>(1, pool().threads()); }

bool on_worker() { return on_pool_thread; }

Priority current_priority() { return running_priority; }

PriorityScope::PriorityScope(Priority p) : before_(running_priority) { running_priority = p; }

PriorityScope::~PriorityScope() { running_priority = before_; }

std::future<void> run(std::function<void()> job, Priority priority) { return pool().submit(std::move(job), priority); }

void finish() {
  if (g_pool_started.load(std::memory_order_acquire)) pool().finish();  // never started: nothing to finish
}

}  // namespace dissect::workers
