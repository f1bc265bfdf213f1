#include <doctest/doctest.h>

#include <filesystem>

#include "engine/bundle/bundle.hpp"
#include "engine/device/device.hpp"
#include "support/temp_dir.hpp"

using namespace dissect;
using dissect::test::TempDir;

namespace {

Point make_point(std::size_t id, std::uint64_t size) {
  Point p;
  p.id = id;
  p.experiment.array.size_bytes = size;
  p.experiment.array.stride_bytes = 4;
  p.axis_values = {{"array.size", std::to_string(size) + " B"}};
  return p;
}

PointTrace make_trace(std::size_t id, int n, double base) {
  PointTrace t;
  t.point_id = id;
  t.timer_overhead_cycles = 12.5;
  t.sm_id = 7;
  t.accesses_per_pass = 4;
  t.discard_passes = 1;
  for (int i = 0; i < n; ++i)
    t.samples.push_back({0, static_cast<std::uint64_t>(i), static_cast<std::uint64_t>(4 * (i % 4)), base + i, 7, 0});
  return t;
}

}  // namespace

TEST_CASE("bundle write/read round trip") {
  TempDir dir;
  const std::string bdir = dir.file("b");
  {
    BundleWriter w(bdir, {{"spec", {{"path", "x.yaml"}}}});
    w.append_point(make_point(0, 1024), make_trace(0, 8, 100));
    w.append_point(make_point(1, 2048), make_trace(1, 8, 200.25));
    w.add_kernel({"pchase_ca_u32", "__global__ void k(){}", ".version 8.0", "", "", {{"arch", "sm_90"}}});
    w.finish("complete");
  }
  const Bundle b = read_bundle(bdir);
  CHECK(b.header["status"] == "complete");
  CHECK(b.header["points_completed"] == 2);
  CHECK(b.header["schema_version"] == kBundleSchemaVersion);
  REQUIRE(b.traces.points.size() == 2);
  const PointTrace& p1 = b.traces.points[1];
  CHECK(p1.size_bytes() == 2048);
  CHECK(p1.timer_overhead_cycles == doctest::Approx(12.5));
  CHECK(p1.sm_id == 7);
  CHECK(p1.accesses_per_pass == 4);
  CHECK(p1.discard_passes == 1);
  REQUIRE(p1.samples.size() == 8);
  CHECK(p1.samples[3].latency == doctest::Approx(203.25));
  CHECK(p1.samples[5].offset_bytes == 4);
  CHECK(p1.measured_samples().size() == 4);  // the first pass (4 accesses) is discarded
  CHECK(p1.param("axes") == "array.size=2048 B");
  CHECK(std::filesystem::exists(bdir + "/kernels/pchase_ca_u32.cu"));
  CHECK(std::filesystem::exists(bdir + "/kernels/pchase_ca_u32.ptx"));
}

TEST_CASE("a batch of points (one per-SM launch) is stored exactly as point by point") {
  TempDir dir;
  {
    BundleWriter one(dir.file("one"), {});
    BundleWriter batch(dir.file("batch"), {});
    const Point p0 = make_point(0, 1024), p1 = make_point(1, 2048), p2 = make_point(2, 4096);
    one.append_point(p0, make_trace(0, 8, 100));
    one.append_point(p1, make_trace(1, 8, 200.25));
    one.append_point(p2, make_trace(2, 3, 50));
    RunSink::PointBatch b;
    b.emplace_back(&p0, make_trace(0, 8, 100));
    b.emplace_back(&p1, make_trace(1, 8, 200.25));
    batch.append_points(b);
    batch.append_points({{&p2, make_trace(2, 3, 50)}});
    CHECK(batch.points_written() == 3);
    one.finish("complete");
    batch.finish("complete");
  }
  for (const char* f : {"trace.csv", "points.csv"})
    CHECK_MESSAGE(test::read_file(dir.file(std::string("one/") + f)) ==
                      test::read_file(dir.file(std::string("batch/") + f)),
                  f);
  CHECK(read_bundle(dir.file("batch")).traces.points.size() == 3);
}

TEST_CASE("retained traces are what read_bundle returns (a run's analysis needs no read-back)") {
  TempDir dir;
  TraceSet kept;
  {
    BundleWriter w(dir.file("b"), {});
    w.retain_traces(&kept);
    const Point p0 = make_point(0, 1024), p1 = make_point(1, 2048);
    PointTrace t0 = make_trace(0, 8, 100.125);
    t0.params["launch"] = "per_sm";  // device notes end up in one column, as on disk
    w.append_point(p0, t0);
    w.append_points({{&p1, make_trace(1, 5, 1.0 / 3)}});
    w.finish("complete");
  }
  const Bundle b = read_bundle(dir.file("b"));
  REQUIRE(kept.points.size() == b.traces.points.size());
  for (std::size_t i = 0; i < kept.points.size(); ++i) {
    const PointTrace &m = kept.points[i], &d = b.traces.points[i];
    CHECK(m.point_id == d.point_id);
    CHECK(m.params == d.params);
    CHECK(m.timer_overhead_cycles == d.timer_overhead_cycles);
    CHECK(m.accesses_per_pass == d.accesses_per_pass);
    REQUIRE(m.samples.size() == d.samples.size());
    for (std::size_t k = 0; k < m.samples.size(); ++k) {
      CHECK(m.samples[k].latency == d.samples[k].latency);  // exact: shortest round-trip text
      CHECK(m.samples[k].offset_bytes == d.samples[k].offset_bytes);
      CHECK(m.samples[k].seq == d.samples[k].seq);
    }
  }
  CHECK(kept.points[0].param("device_notes") == "launch=per_sm");
}

TEST_CASE("a killed run leaves a readable bundle of its committed points") {
  TempDir dir;
  const std::string bdir = dir.file("b");
  {
    BundleWriter w(bdir, {});
    w.append_point(make_point(0, 1024), make_trace(0, 4, 10));
    // No finish(): the process "died" here.
  }
  // A torn tail: samples of an uncommitted point and half a line.
  {
    std::ofstream t(bdir + "/trace.csv", std::ios::app);
    t << "1,0,0,0,99,7,0\n1,0,1,4,9";
    std::ofstream p(bdir + "/points.csv", std::ios::app);
    p << "1,ok,pchase";  // torn points row
  }
  const Bundle b = read_bundle(bdir);
  CHECK(b.header["status"] == "running");
  REQUIRE(b.traces.points.size() == 1);
  CHECK(b.traces.points[0].samples.size() == 4);
}

TEST_CASE("bundles are never overwritten") {
  TempDir dir;
  const std::string first = fresh_bundle_dir(dir.path(), "l1 size");
  CHECK(first == dir.file("l1_size"));
  { BundleWriter w(first, {}); }
  const std::string second = fresh_bundle_dir(dir.path(), "l1 size");
  CHECK(second == dir.file("l1_size-2"));
  std::filesystem::create_directories(dir.file("full"));
  dir.write("full/x", "data");
  CHECK_THROWS_AS(BundleWriter(dir.file("full"), {}), std::runtime_error);
}

TEST_CASE("reading something that is not a bundle fails with the file name") {
  TempDir dir;
  CHECK_THROWS_WITH_AS(read_bundle(dir.file("nope")), doctest::Contains("not a bundle directory"), std::runtime_error);
  dir.write("x/bundle.json", "{not json");
  CHECK_THROWS_WITH_AS(read_bundle(dir.file("x")), doctest::Contains("malformed JSON"), std::runtime_error);
}
