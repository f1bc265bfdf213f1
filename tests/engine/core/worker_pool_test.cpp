#include "engine/core/worker_pool.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <functional>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

using namespace dissect;

namespace {

// Every worker of the pool busy until let_go(): the jobs queued meanwhile wait, in their
// queues, for the order in which free workers take them.
struct EveryWorkerHeld {
  std::atomic<bool> go{false};
  std::vector<std::future<void>> done;  // the holding jobs, then whatever the test queues
  EveryWorkerHeld() {
    std::atomic<std::size_t> held{0};
    for (std::size_t i = 0; i < workers::size(); ++i)
      done.push_back(workers::run([this, &held] {
        ++held;
        while (!go.load()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
      }));
    while (held.load() < workers::size()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  // Queues 2 x workers + 1 normal jobs behind the held workers, each noting in `normal_at`
  // its place in the order jobs start (`started`).
  std::vector<std::size_t> normal_at;
  void queue_normal(std::atomic<std::size_t>& started) {
    normal_at.assign(2 * workers::size() + 1, 0);
    for (std::size_t i = 0; i < normal_at.size(); ++i)
      done.push_back(workers::run([this, &started, i] { normal_at[i] = started++; }));
  }
  // Lets the workers go and waits for every job in `done`.
  void let_go() {
    go = true;
    for (auto& f : done) f.get();
  }
  ~EveryWorkerHeld() { go = true; }  // a failed REQUIRE must not leave the workers spinning
};

}  // namespace

TEST_CASE("worker pool: jobs run, results and exceptions come back through their futures") {
  CHECK(workers::size() >= 1);
  std::atomic<int> ran{0};
  std::vector<std::future<void>> done;
  for (int i = 0; i < 50; ++i) done.push_back(workers::run([&] { ++ran; }));
  for (auto& f : done) f.get();
  CHECK(ran == 50);
  CHECK(workers::submit([] { return 6 * 7; }).get() == 42);
  auto failing = workers::submit([]() -> int { throw std::runtime_error("no"); });
  CHECK_THROWS_WITH_AS(failing.get(), "no", std::runtime_error);
}

TEST_CASE("a pool Job runs once, on a worker or on the thread that asks first") {
  std::atomic<int> runs{0};
  std::vector<std::shared_ptr<workers::Job<int>>> jobs;
  for (int i = 0; i < 100; ++i) jobs.push_back(workers::start<int>([&runs, i] { return ++runs, i * i; }));
  for (int i = 0; i < 100; ++i) CHECK(jobs[static_cast<std::size_t>(i)]->get() == i * i);
  CHECK(runs == 100);
  // Not started by anyone: run() takes it, a second run() does nothing.
  workers::Job<int> j([&runs] { return ++runs, 5; });
  CHECK(j.run());
  CHECK_FALSE(j.run());
  CHECK(j.ready());
  CHECK(j.get() == 5);
  CHECK(runs == 101);
  // Called off before anyone took it up: the work never runs, get() says so.
  workers::Job<int> off([&runs] { return ++runs, 1; });
  off.cancel();
  CHECK_FALSE(off.run());
  CHECK_THROWS_AS(off.get(), std::runtime_error);
  CHECK(runs == 101);
}

TEST_CASE("on_worker: true on the pool's threads, false on the thread that runs a Job itself") {
  CHECK_FALSE(workers::on_worker());
  CHECK(workers::submit([] { return workers::on_worker(); }).get());
  workers::Job<bool> here([] { return workers::on_worker(); });
  CHECK_FALSE(here.get());  // nobody took it up: this thread ran it
}

TEST_CASE("run_all: every task's result in order; a failure is rethrown once every task has finished") {
  std::vector<std::function<int()>> tasks;
  for (int i = 0; i < 40; ++i) tasks.emplace_back([i] { return i * i; });
  const std::vector<int> squares = workers::run_all(std::move(tasks));
  REQUIRE(squares.size() == 40);
  for (int i = 0; i < 40; ++i) CHECK(squares[static_cast<std::size_t>(i)] == i * i);
  CHECK(workers::run_all(std::vector<std::function<int()>>{}).empty());

  // Tasks that read the caller's locals: all of them have run when the first failure comes back.
  std::vector<int> inputs(64, 1);
  std::atomic<int> finished{0};
  std::vector<std::function<int()>> failing;
  for (std::size_t i = 0; i < inputs.size(); ++i)
    failing.emplace_back([&, i] {
      std::this_thread::sleep_for(std::chrono::microseconds(200));
      ++finished;
      if (i == 3 || i == 40) throw std::runtime_error("task " + std::to_string(i));
      return inputs[i];
    });
  try {
    workers::run_all(std::move(failing));
    FAIL("no exception");
  } catch (const std::runtime_error& e) {
    CHECK(std::string(e.what()) == "task 3");  // the first in order
  }
  CHECK(finished.load() == 64);
}

TEST_CASE("an urgent job is taken before the normal jobs queued ahead of it") {
  // Every worker held; then normal jobs, then one urgent job; then the workers let go.
  EveryWorkerHeld pool;
  std::atomic<std::size_t> started{0};
  pool.queue_normal(started);
  const std::size_t normal = pool.normal_at.size();
  std::size_t urgent_at = 0;
  pool.done.push_back(workers::run([&] { urgent_at = started++; }, workers::Priority::urgent));
  pool.let_go();
  // Without the priority it would start last; with it, the first free worker takes it.
  CHECK(urgent_at < normal);
  CHECK(*std::max_element(pool.normal_at.begin(), pool.normal_at.end()) == normal);
}

TEST_CASE("a soon job goes after urgent ones and before normal ones; the jobs it starts inherit its priority") {
  // Every worker held; then normal jobs, a soon job that starts a job of its own, an urgent
  // job; then the workers let go.
  EveryWorkerHeld pool;
  std::vector<std::future<void>>& done = pool.done;
  std::atomic<std::size_t> started{0};
  pool.queue_normal(started);
  const std::size_t normal = pool.normal_at.size();
  std::size_t soon_at = 0, urgent_at = 0;
  workers::Priority soon_ran_as = workers::Priority::normal, inherited = workers::Priority::normal;
  std::future<void> nested;
  done.push_back(workers::run(
      [&] {
        soon_at = started++;
        soon_ran_as = workers::current_priority();
        nested = workers::run([&] { inherited = workers::current_priority(); });  // no priority named
      },
      workers::Priority::soon));
  done.push_back(workers::run([&] { urgent_at = started++; }, workers::Priority::urgent));
  pool.let_go();
  nested.get();
  // Urgent and soon both before every normal job (which of the two starts first depends on
  // which free worker gets to its counter first).
  CHECK(urgent_at < normal);
  CHECK(soon_at < normal);
  CHECK(*std::max_element(pool.normal_at.begin(), pool.normal_at.end()) == normal + 1);
  CHECK(soon_ran_as == workers::Priority::soon);
  CHECK(inherited == workers::Priority::soon);
  CHECK(workers::current_priority() == workers::Priority::normal);  // this thread runs no job
  {
    const workers::PriorityScope scope(workers::Priority::soon);
    CHECK(workers::current_priority() == workers::Priority::soon);
  }
  CHECK(workers::current_priority() == workers::Priority::normal);
}
