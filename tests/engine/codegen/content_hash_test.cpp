#include <doctest/doctest.h>

#include "engine/codegen/content_hash.hpp"

using namespace dissect;

TEST_CASE("content hashes are stable, 32 hex digits, and separate fields") {
  const std::string h = ContentHash().field("ab").field("c").hex();
  CHECK(h.size() == 32);
  CHECK(h == ContentHash().field("ab").field("c").hex());
  CHECK(h != ContentHash().field("a").field("bc").hex());
  CHECK(ContentHash().add("x").hex() != ContentHash().add("y").hex());
}
