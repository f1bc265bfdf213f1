#include "engine/topology/l2_partition_copies.hpp"

#include <doctest/doctest.h>

using namespace dissect;

namespace {

constexpr std::uint64_t MiB = 1ull << 20;
using Size = std::optional<std::uint64_t>;

PartitionCopiesInput input(Size one_sm, Size whole, Size partitions, Size driver) {
  PartitionCopiesInput in;
  in.one_sm_bytes = one_sm;
  in.whole_gpu_bytes = whole;
  in.partitions = partitions;
  in.driver_bytes = driver;
  return in;
}

std::string verdict(const PartitionCopiesInput& in) {
  const auto j = read_partition_copies(in);
  REQUIRE(j.has_value());
  return (*j)["verdict"].get<std::string>();
}

}  // namespace

TEST_CASE("partition copies: each model's sizes against the driver's L2") {
  // L = 50 MiB in two partitions. Copies: one SM 25, every SM 33.3; shared: 50 and 50;
  // private: 25 and 50. Knees read at or a little below a capacity.
  CHECK(verdict(input(24 * MiB, 33 * MiB, 2, 50 * MiB)) ==
        "copies");
  CHECK(verdict(input(47 * MiB, 49 * MiB, 2, 50 * MiB)) ==
        "shared");
  // Every SM near L: private placement, or copies whose stale home lines all went; the
  // sizes cannot tell them apart.
  const auto near_l = read_partition_copies(input(24 * MiB, 48 * MiB, 2, 50 * MiB));
  REQUIRE(near_l.has_value());
  CHECK((*near_l)["verdict"] == "undetermined");
  CHECK((*near_l)["summary"].get<std::string>().find("two models fit (copies, private)") == 0);
  // Copies whose stale home lines go first: every SM between two thirds and all of the L2.
  const auto some = read_partition_copies(input(24 * MiB, 38 * MiB, 2, 50 * MiB));
  REQUIRE(some.has_value());
  CHECK((*some)["verdict"] == "copies");
  CHECK((*some)["held_twice_share"].get<double>() == doctest::Approx(50.0 / 38 - 1));
  CHECK((*some)["summary"].get<std::string>().find("(about 32% of the lines held twice)") != std::string::npos);
  // One SM half the L2 (copies or private), every SM 33 of 60 MiB: under the copies' 40 by
  // more than a knee reads low, far under the private 60: no model.
  const auto none =
      read_partition_copies(input(28 * MiB, 33 * MiB, 2, 60 * MiB));
  REQUIRE(none.has_value());
  CHECK((*none)["verdict"] == "undetermined");
  CHECK((*none)["summary"].get<std::string>().find("no model fits") == 0);
  CHECK((*none)["models"].size() == 3);
  // A size above its prediction by more than a search step fits nothing either.
  CHECK(verdict(input(30 * MiB, 40 * MiB, 2, 50 * MiB)) ==
        "undetermined");
}

TEST_CASE("partition copies: without the driver's figure, the ratio of the two sizes") {
  // P = 2: shared 1, copies 4/3 to 2, private 2.
  CHECK(verdict(input(25 * MiB, 33 * MiB, 2, std::nullopt)) == "copies");
  CHECK(verdict(input(8 * MiB, 8 * MiB, 2, std::nullopt)) == "shared");
  CHECK(verdict(input(4 * MiB, 8 * MiB, 2, std::nullopt)) == "undetermined");  // copies or private
  // 1.16: as near the shared model's 1 as the copies' 4/3, given how knees read.
  const auto two = read_partition_copies(input(100 * MiB, 116 * MiB, 2, std::nullopt));
  REQUIRE(two.has_value());
  CHECK((*two)["verdict"] == "undetermined");
  CHECK((*two)["summary"].get<std::string>().find("two models fit (shared, copies)") == 0);
  // Four partitions: copies hold up to 1 + 3/4 bytes per byte, W / O = 16 / 7 and more.
  CHECK(verdict(input(7 * MiB, 16 * MiB, 4, std::nullopt)) == "copies");
}

TEST_CASE("partition copies: the sizes' confidence travels with the verdict") {
  PartitionCopiesInput in = input(24 * MiB, 33 * MiB, 2, 50 * MiB);
  in.one_sm_confidence = 0.75;
  in.whole_gpu_confidence = 0.53;
  const auto j = read_partition_copies(in);
  REQUIRE(j.has_value());
  CHECK((*j)["verdict"] == "copies");
  CHECK((*j)["sizes_confidence"].get<double>() == doctest::Approx(0.53));
  CHECK((*j)["summary"].get<std::string>().find("sizes read with confidence 0.53") != std::string::npos);
  CHECK_FALSE(read_partition_copies(input(24 * MiB, 33 * MiB, 2, 50 * MiB))->contains("sizes_confidence"));
}

TEST_CASE("partition copies: nothing to read without two partitions and both sizes") {
  CHECK_FALSE(read_partition_copies(input(8 * MiB, 8 * MiB, 1, std::nullopt)));
  CHECK_FALSE(read_partition_copies(input(8 * MiB, 8 * MiB, std::nullopt, std::nullopt)));
  CHECK_FALSE(read_partition_copies(input(8 * MiB, std::nullopt, 2, std::nullopt)));
  CHECK_FALSE(read_partition_copies(input(std::nullopt, 8 * MiB, 2, std::nullopt)));
}
