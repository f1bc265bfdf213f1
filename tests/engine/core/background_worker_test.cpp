// The process's lanes for side jobs (a bundle's header and stores): order within a lane,
// lanes side by side, outcomes, reuse.
#include <doctest/doctest.h>

#include <atomic>
#include <chrono>
#include <future>
#include <stdexcept>
#include <thread>
#include <vector>

#include "engine/core/background_worker.hpp"

using namespace dissect;

TEST_CASE("background jobs run in the order they were given, on one thread that is not the caller's") {
  background::warm_up();
  std::vector<int> order;
  std::vector<std::thread::id> threads;
  std::vector<std::future<void>> done;
  for (int i = 0; i < 20; ++i)
    done.push_back(background::run([i, &order, &threads] {
      order.push_back(i);  // one worker: no two jobs at once
      threads.push_back(std::this_thread::get_id());
    }));
  for (auto& d : done) d.get();
  REQUIRE(order.size() == 20);
  for (int i = 0; i < 20; ++i) CHECK(order[static_cast<std::size_t>(i)] == i);
  for (const auto& t : threads) {
    CHECK(t == threads.front());
    CHECK(t != std::this_thread::get_id());
  }
}

TEST_CASE("a background job's exception reaches its future; the worker goes on") {
  std::future<void> failing = background::run([] { throw std::runtime_error("disk full"); });
  CHECK_THROWS_WITH_AS(failing.get(), "disk full", std::runtime_error);
  std::atomic<bool> ran{false};
  background::run([&ran] { ran = true; }).get();
  CHECK(ran.load());
}

TEST_CASE("background lanes run side by side: a lane's job does not wait for another lane's") {
  // The first job of lane a waits for the job given to lane b after it: with one thread for
  // both, it would wait out its timeout.
  const std::size_t a = background::next_lane();
  std::size_t b = background::next_lane();
  while (b == a) b = background::next_lane();
  std::promise<void> b_ran;
  std::future<void> b_seen = b_ran.get_future();
  std::atomic<bool> a_saw_b{false};
  std::future<void> first = background::run(
      [&] { a_saw_b = b_seen.wait_for(std::chrono::seconds(20)) == std::future_status::ready; }, a);
  background::run([&] { b_ran.set_value(); }, b).get();
  first.get();
  CHECK(a_saw_b.load());
  // Lanes come in turn and wrap around.
  const std::size_t l = background::next_lane();
  std::size_t m = background::next_lane(), steps = 1;
  while (m != l && steps < 64) m = background::next_lane(), ++steps;
  CHECK(m == l);
  CHECK(steps > 1);
}

TEST_CASE("a new bundle's lane is an idle one while one is idle") {
  // Lane `busy` holds a job until released: the lanes handed out meanwhile are others.
  const std::size_t busy = background::next_lane();
  std::promise<void> release;
  std::shared_future<void> released = release.get_future().share();
  std::promise<void> started;
  std::future<void> running = started.get_future();
  std::future<void> blocker = background::run(
      [&started, released] {
        started.set_value();
        released.wait();
      },
      busy);
  running.wait();
  for (int i = 0; i < 16; ++i) CHECK(background::next_lane() != busy);
  release.set_value();
  blocker.get();
}
