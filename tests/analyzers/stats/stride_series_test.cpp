#include "analyzers/stats/stride_series.hpp"

#include <doctest/doctest.h>

using namespace dissect;

TEST_CASE("parse_stride_penalties: stride and cycles per item, malformed items left out") {
  const auto p = stats::parse_stride_penalties("35651648:103.25 71303264:762 nonsense 12:x");
  REQUIRE(p.size() == 2);
  CHECK(p.at(35651648) == doctest::Approx(103.25));
  CHECK(p.at(71303264) == doctest::Approx(762));
  CHECK(stats::parse_stride_penalties("").empty());
}

TEST_CASE("chase_points_by_stride: usable pointer chases grouped by their stride") {
  TraceSet t;
  auto point = [](std::size_t id, std::uint64_t stride, const std::string& status, bool samples,
                  const std::string& kernel = "pchase") {
    PointTrace p;
    p.point_id = id;
    p.status = status;
    p.params = {{"kernel", kernel}, {"size_bytes", std::to_string(8 * stride)}, {"stride_bytes", std::to_string(stride)}};
    if (samples) p.samples.push_back(Sample{});
    return p;
  };
  t.points = {point(0, 64, "ok", true), point(1, 128, "ok", true), point(2, 64, "ok", true),
              point(3, 64, "failed", true), point(4, 64, "ok", false), point(5, 64, "ok", true, "throughput")};
  const auto by = stats::chase_points_by_stride(t);
  REQUIRE(by.size() == 2);
  CHECK(by.at(64).size() == 2);
  CHECK(by.at(128).size() == 1);
}
