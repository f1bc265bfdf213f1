#include "engine/core/worker_pool.hpp"

#include <doctest/doctest.h>

#include <atomic>
#include <stdexcept>
#include <vector>

using namespace dissect;

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
