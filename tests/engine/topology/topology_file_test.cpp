// Reading a topology back: a directory or a file; errors name the path.
#include <doctest/doctest.h>

#include <stdexcept>

#include "engine/topology/topology_file.hpp"
#include "support/temp_dir.hpp"

using namespace dissect;
using dissect::test::TempDir;

TEST_CASE("topology file: a directory holding topology.json, or the file itself") {
  TempDir dir;
  dir.write("out/topology.json",
            R"({"device": {"name": "Sim GPU", "sm_count": 4}, "caches": {"l1": {"size_bytes": 1024, "replacement": "lru"}}})");
  const TopologyFile a = read_topology_file(dir.file("out"));
  const TopologyFile b = read_topology_file(dir.file("out/topology.json"));
  CHECK(a.path == b.path);
  CHECK(a.device_name() == "Sim GPU");
  CHECK(a.cache_number("l1", "size_bytes") == 1024.0);
  CHECK_FALSE(a.cache_number("l1", "line_bytes"));
  CHECK_FALSE(a.cache_number("l2", "size_bytes"));
  CHECK(a.cache_string("l1", "replacement") == std::string("lru"));
  CHECK(a.device_number("sm_count") == 4.0);
}

TEST_CASE("topology file: missing, not JSON, not a topology") {
  TempDir dir;
  CHECK_THROWS_AS(read_topology_file(dir.path()), std::invalid_argument);
  CHECK_THROWS_WITH_AS(read_topology_file(dir.write("bad.json", "{")), doctest::Contains("not JSON"),
                       std::invalid_argument);
  CHECK_THROWS_WITH_AS(read_topology_file(dir.write("other.json", "[1, 2]")), doctest::Contains("not a topology.json"),
                       std::invalid_argument);
}
