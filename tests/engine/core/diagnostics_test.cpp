#include <doctest/doctest.h>

#include "engine/core/diagnostics.hpp"

using namespace dissect;

TEST_CASE("locations print like compilers print them") {
  CHECK(Location{"a.yaml", 3, 7}.str() == "a.yaml:3:7");
  CHECK(Location{"a.csv", 12, 0}.str() == "a.csv:12");
  CHECK(Location{"x", 0, 0}.str() == "x");
}

TEST_CASE("closest_match suggests plausible typos only") {
  CHECK(closest_match("strde", {"size", "stride", "offset"}) == "stride");
  CHECK(closest_match("pth", {"path", "kernel"}) == "path");
  CHECK(closest_match("completely_different", {"path", "kernel"}).empty());
  CHECK(edit_distance("kitten", "sitting") == 3);
}

TEST_CASE("diagnostics print in file order") {
  Diagnostics d;
  d.error({"a", 5, 1}, "second");
  d.error({"a", 2, 1}, "first");
  d.error({"b", 1, 1}, "other file");
  CHECK(d.str() == "a:2:1: first\na:5:1: second\nb:1:1: other file\n");
}
