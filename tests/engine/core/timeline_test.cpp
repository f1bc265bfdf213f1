// The host timeline of --timing 2: marks in order, with their threads; nothing when off.
#include <doctest/doctest.h>

#include <cstdio>
#include <string>
#include <thread>

#include "engine/core/timeline.hpp"

using namespace dissect;

namespace {

// What timeline::print writes, read back from a temporary file.
std::string printed() {
  std::FILE* f = std::tmpfile();
  REQUIRE(f != nullptr);
  timeline::print(f);
  std::rewind(f);
  std::string text;
  char buf[512];
  while (const std::size_t n = std::fread(buf, 1, sizeof buf, f)) text.append(buf, n);
  std::fclose(f);
  return text;
}

}  // namespace

TEST_CASE("timeline marks are printed oldest first with their threads, then forgotten") {
  timeline::enable(true);
  (void)printed();  // whatever earlier code marked
  timeline::mark("first");
  std::thread([] { timeline::mark("on a worker"); }).join();
  timeline::mark("last");
  const std::string text = printed();
  const auto first = text.find("t0  first"), worker = text.find("t1  on a worker"), last = text.find("t0  last");
  CHECK(first != std::string::npos);
  CHECK(worker != std::string::npos);
  CHECK(last != std::string::npos);
  CHECK(first < worker);
  CHECK(worker < last);
  CHECK(printed().empty());  // printed once
  timeline::enable(false);
}

TEST_CASE("a timeline that is off records nothing") {
  timeline::enable(false);
  timeline::mark("not kept");
  CHECK(printed().empty());
}
