// Where the data is read: an installed binary's prefix first, a build folder's source tree first.
#include <doctest/doctest.h>

#include "engine/core/paths.hpp"

using namespace dissect;

TEST_CASE("paths: an installed binary reads <prefix>/share/dissect before the source tree") {
  const auto c = data_candidates("/opt/x/bin", "specs");
  REQUIRE(c.size() == 3);
  CHECK(c[0] == "/opt/x/share/dissect/specs");
  CHECK(c[1] == std::string(DISSECT_SOURCE_DIR) + "/specs");
  CHECK(c[2] == "/opt/x/bin/share/dissect/specs");
}

TEST_CASE("paths: a build folder's binary reads the source tree, then its own copy") {
  const auto c = data_candidates("/src/build", "kernels_templates");
  REQUIRE(c.size() == 3);
  CHECK(c[0] == std::string(DISSECT_SOURCE_DIR) + "/kernels_templates");
  CHECK(c[1] == "/src/build/share/dissect/kernels_templates");
  CHECK(c[2] == "/src/share/dissect/kernels_templates");
}
