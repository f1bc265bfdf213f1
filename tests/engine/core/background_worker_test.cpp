// The process's worker thread for side jobs (a bundle's header): order, outcomes, reuse.
#include <doctest/doctest.h>

#include <atomic>
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
