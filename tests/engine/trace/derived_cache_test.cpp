#include <doctest/doctest.h>

#include <atomic>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "engine/trace/derived_cache.hpp"
#include "engine/trace/trace.hpp"

using namespace dissect;

TEST_CASE("DerivedCache makes a key's value once and hands every asker the same") {
  DerivedCache cache;
  int made = 0;
  const auto make = [&] { return ++made * 10; };
  const auto a = cache.get<int>("x", make);
  const auto b = cache.get<int>("x", make);
  CHECK(*a == 10);
  CHECK(a == b);  // the same object
  CHECK(made == 1);
  CHECK(*cache.get<int>("y", make) == 20);  // another key: made
  CHECK(cache.size() == 2);
}

TEST_CASE("DerivedCache: askers of one key at once wait for the one that makes it") {
  DerivedCache cache;
  std::atomic<int> made{0};
  std::vector<std::thread> askers;
  std::vector<int> got(8, 0);
  for (int i = 0; i < 8; ++i)
    askers.emplace_back([&, i] {
      got[static_cast<std::size_t>(i)] = *cache.get<int>("k", [&] {
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
        return ++made;
      });
    });
  for (auto& t : askers) t.join();
  CHECK(made == 1);
  for (int v : got) CHECK(v == 1);
}

TEST_CASE("DerivedCache: what making a value threw is thrown to every asker") {
  DerivedCache cache;
  int tries = 0;
  const auto fail = [&]() -> int {
    ++tries;
    throw std::runtime_error("no series");
  };
  CHECK_THROWS_WITH(cache.get<int>("bad", fail), "no series");
  CHECK_THROWS_WITH(cache.get<int>("bad", fail), "no series");
  CHECK(tries == 1);
}

TEST_CASE("a copy of a TraceSet starts with no derived values; a move keeps them") {
  TraceSet t;
  (void)t.derived->get<int>("k", [] { return 1; });
  REQUIRE(t.derived->size() == 1);
  TraceSet copy = t;
  CHECK(copy.derived->size() == 0);
  TraceSet assigned;
  (void)assigned.derived->get<int>("other", [] { return 2; });
  assigned = t;
  CHECK(assigned.derived->size() == 0);
  TraceSet moved = std::move(t);
  CHECK(moved.derived->size() == 1);
  CHECK(t.derived->size() == 0);  // NOLINT(bugprone-use-after-move): the source is left usable, empty
}
