// Row text of trace.csv and points.csv (the writer's byte-for-byte output is
// checked against the plain way of formatting in bundle_test.cpp).
#include <doctest/doctest.h>

#include <limits>

#include "engine/bundle/bundle.hpp"
#include "engine/bundle/bundle_rows.hpp"

using namespace dissect;

TEST_CASE("a sample row holds the widest numbers of every field within kMaxSampleRow") {
  Sample s;
  s.thread = std::numeric_limits<std::uint32_t>::max();
  s.seq = std::numeric_limits<std::uint64_t>::max();
  s.offset_bytes = std::numeric_limits<std::uint64_t>::max();
  s.latency = -2.2250738585072014e-308;
  s.sm_id = std::numeric_limits<std::int32_t>::min();
  s.phase = std::numeric_limits<std::uint32_t>::max();
  const std::string id = "18446744073709551615";
  char row[kMaxSampleRow];
  const std::string text(row, write_sample_row(row, id, s));
  CHECK(text == id + ",4294967295,18446744073709551615,18446744073709551615,-2.2250738585072014e-308,-2147483648,"
                     "4294967295\n");
  CHECK(text.size() <= kMaxSampleRow);
  Sample plain;
  plain.latency = 31;
  CHECK(std::string(row, write_sample_row(row, "7", plain)) == "7,0,0,0,31,-1,0\n");
}

TEST_CASE("a points.csv row: parameters prepared ahead, results, and the row by column") {
  Point p;
  p.id = 12;
  p.experiment.array.size_bytes = 4096;
  p.experiment.array.stride_bytes = 64;
  p.axis_values = {{"array.size", "4 KiB"}, {"note", "a, \"b\""}};
  const PreparedRow parts = prepare_row(p);
  REQUIRE(parts.params == point_params(p));
  CHECK(parts.axes == "array.size=4 KiB; note=a, \"b\"");
  const std::vector<std::string> columns = points_columns(parts);
  CHECK(columns.front() == "point_id");
  CHECK(columns.back() == "device_notes");
  CHECK(columns.size() == 2 + parts.params.size() + 15);

  PointTrace t;
  t.timer_overhead_cycles = 0.5;
  t.accesses_per_pass = 2;
  t.discard_passes = 1;  // the first 2 samples are left out of the summary
  t.params = {{"launch", "per_sm"}, {"size_bytes", "4096"}};  // a point parameter is no device note
  for (std::uint64_t i = 0; i < 5; ++i) t.samples.push_back({0, i, 0, 10.0 * static_cast<double>(i + 1), 3, 0});
  std::string out;
  std::map<std::string, std::string> by_column;
  append_point_row(p, t, parts, columns, out, &by_column);
  CHECK(out == "12,ok," + parts.params_csv + ",2,1,-1,0.5,nan,nan,3,30,31,40,40,49,50," +
                   "\"array.size=4 KiB; note=a, \"\"b\"\"\",launch=per_sm\n");
  CHECK(by_column.size() == columns.size());
  CHECK(by_column.at("point_id") == "12");
  CHECK(by_column.at("size_bytes") == "4096");
  CHECK(by_column.at("lat_median") == "40");
  CHECK(by_column.at("axes") == "array.size=4 KiB; note=a, \"b\"");
  CHECK(by_column.at("device_notes") == "launch=per_sm");
  std::string again;
  append_point_row(p, t, parts, columns, again, nullptr);  // no row by column wanted
  CHECK(again == out);
}
