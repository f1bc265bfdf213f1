#include <doctest/doctest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <limits>
#include <set>
#include <thread>

#include "engine/bundle/bundle.hpp"
#include "engine/core/csv.hpp"
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
  const std::string first = claim_bundle_dir(dir.path(), "l1 size");
  CHECK(first == dir.file("l1_size"));
  { BundleWriter w(first, {}); }
  const std::string second = claim_bundle_dir(dir.path(), "l1 size");
  CHECK(second == dir.file("l1_size-2"));
  // Claimed (created) even before a writer opens it: the next claim moves on.
  CHECK(std::filesystem::is_directory(second));
  CHECK(claim_bundle_dir(dir.path(), "l1 size") == dir.file("l1_size-3"));
  std::filesystem::create_directories(dir.file("full"));
  dir.write("full/x", "data");
  CHECK_THROWS_AS(BundleWriter(dir.file("full"), {}), std::runtime_error);
  // Opened on a worker: the check that the directory is fresh is still made at once.
  CHECK_THROWS_AS(BundleWriter(dir.file("full"), BundleWriter::DeferredHeader([] { return nlohmann::json{}; })),
                  std::runtime_error);
}

TEST_CASE("reading something that is not a bundle fails with the file name") {
  TempDir dir;
  CHECK_THROWS_WITH_AS(read_bundle(dir.file("nope")), doctest::Contains("not a bundle directory"), std::runtime_error);
  dir.write("x/bundle.json", "{not json");
  CHECK_THROWS_WITH_AS(read_bundle(dir.file("x")), doctest::Contains("malformed JSON"), std::runtime_error);
}

namespace {

// trace.csv and points.csv rows as the writer has always formatted them, built
// the plain way (one string per field): the reference for byte-identical bundles.
std::string reference_trace_rows(const Point& p, const PointTrace& t) {
  std::string out;
  for (const Sample& s : t.samples)
    out += csv_row({std::to_string(p.id), std::to_string(s.thread), std::to_string(s.seq),
                    std::to_string(s.offset_bytes), format_number(s.latency), std::to_string(s.sm_id),
                    std::to_string(s.phase)});
  return out;
}

std::string reference_points_row(const Point& p, const PointTrace& t, bool header) {
  const auto params = point_params(p);
  std::string out;
  if (header) {
    std::vector<std::string> cols{"point_id", "status"};
    for (const auto& [k, v] : params) cols.push_back(k);
    for (const char* c : {"accesses_per_pass", "discard_passes", "sm_id", "timer_overhead_cycles", "kernel_ms",
                          "sm_clock_khz", "samples", "lat_min", "lat_p5", "lat_median", "lat_mean", "lat_p95",
                          "lat_max", "axes", "device_notes"})
      cols.push_back(c);
    out += csv_row(cols);
  }
  std::vector<double> lat;
  for (const Sample* s : t.measured_samples()) lat.push_back(s->latency);
  const LatencySummary sum = summarize(lat);
  std::string axes, notes;
  for (const auto& [f, v] : p.axis_values) axes += (axes.empty() ? "" : "; ") + f + "=" + v;
  for (const auto& [k, v] : t.params)
    if (std::none_of(params.begin(), params.end(), [&](const auto& kv) { return kv.first == k; }))
      notes += (notes.empty() ? "" : "; ") + k + "=" + v;
  std::vector<std::string> row{std::to_string(p.id), t.status};
  for (const auto& [k, v] : params) row.push_back(v);
  for (const std::string& v :
       {std::to_string(t.accesses_per_pass), std::to_string(t.discard_passes), std::to_string(t.sm_id),
        format_number(t.timer_overhead_cycles), format_number(t.kernel_ms), format_number(t.sm_clock_khz),
        std::to_string(sum.count), format_number(sum.min), format_number(sum.p5), format_number(sum.median),
        format_number(sum.mean), format_number(sum.p95), format_number(sum.max), axes, notes})
    row.push_back(v);
  return out + csv_row(row);
}

}  // namespace

TEST_CASE("rows are formatted exactly as the plain way does it, across many chunks of trace.csv") {
  TempDir dir;
  Point big = make_point(3, 1u << 20);
  big.axis_values = {{"array.size", "1 MiB"}, {"label", "a,b \"c\""}};
  PointTrace bt = make_trace(3, 0, 0);
  bt.timer_overhead_cycles = 1.0 / 3;
  bt.kernel_ms = 14.25;
  bt.sm_clock_khz = 1980000;
  bt.sm_id = -1;
  bt.accesses_per_pass = 5;
  bt.discard_passes = 2;
  bt.params = {{"launch", "per_sm"}, {"smem_note", "carveout 0 %, \"max_l1\""}, {"size_bytes", "hidden"}};
  // Rows of every width (the widest numbers each field can hold), far more of them
  // than one chunk of the writer's buffer holds.
  for (std::uint64_t i = 0; i < 100000; ++i) {
    Sample s;
    s.thread = i % 3 == 0 ? 4294967295u : static_cast<std::uint32_t>(i % 7);
    s.seq = i % 5 == 0 ? ~0ull - i : i;
    s.offset_bytes = i % 9 == 0 ? ~0ull : i * 128;
    s.latency = i % 4 == 0 ? 33.0 + static_cast<double>(i) / 7 : i % 6 == 0 ? -1e300 : static_cast<double>(i % 700);
    s.sm_id = i % 8 == 0 ? -2147483647 - 1 : 131;
    s.phase = i % 2 == 0 ? 4294967295u : 1;
    bt.samples.push_back(s);
  }
  const Point small = make_point(4, 2048);
  PointTrace st = make_trace(4, 3, 0.1);
  st.samples[1].latency = std::numeric_limits<double>::quiet_NaN();
  st.kernel_ms = std::numeric_limits<double>::infinity();
  {
    BundleWriter w(dir.file("b"), {});
    w.append_points({{&big, bt}});
    w.append_point(small, st);
    w.finish("complete");
  }
  CHECK(test::read_file(dir.file("b/trace.csv")) ==
        "point_id,thread,seq,offset_bytes,latency,sm_id,phase\n" + reference_trace_rows(big, bt) +
            reference_trace_rows(small, st));
  CHECK(test::read_file(dir.file("b/points.csv")) ==
        reference_points_row(big, bt, true) + reference_points_row(small, st, false));
}

TEST_CASE("rows prepared ahead (while the kernel runs) are stored exactly as rows formatted whole") {
  TempDir dir;
  TraceSet kept_whole, kept_prepared;
  Point p0 = make_point(0, 1024), p1 = make_point(1, 2048), p2 = make_point(2, 4096);
  p1.axis_values.push_back({"label", "needs \"quotes\", and commas"});
  auto traces = [] {
    PointTrace t0 = make_trace(0, 8, 100.125), t1 = make_trace(1, 5, 1.0 / 3), t2 = make_trace(2, 3, 7);
    t0.params["launch"] = "per_sm";
    t0.params["smem_note"] = "7168 B, \"fills\" the SM";  // quoted and escaped in the row
    t1.status = "failed: lane 3 unwritten";
    t2.params["late"] = "1";  // not there yet when the notes were prepared (below): formatted again
    return RunSink::PointBatch{{nullptr, t0}, {nullptr, t1}, {nullptr, t2}};
  };
  const Point* points[] = {&p0, &p1, &p2};
  TraceSet kept_notes;
  for (const char* mode : {"whole", "prepared", "notes"}) {
    const std::string m = mode;
    BundleWriter w(dir.file(m), {});
    w.retain_traces(m == "whole" ? &kept_whole : m == "prepared" ? &kept_prepared : &kept_notes);
    RunSink::PointBatch batch = traces();
    for (std::size_t i = 0; i < batch.size(); ++i) batch[i].first = points[i];
    if (m == "prepared") {
      w.prepare_points(points);
      w.prepare_points(std::span<const Point* const>(points, 1));  // prepared twice: the last one counts
    }
    if (m == "notes") {  // with the traces' notes, as the CUDA device announces a launch
      RunSink::PointBatch announced = traces();
      announced[2].second.params.erase("late");
      const PointTrace* started[] = {&announced[0].second, &announced[1].second, &announced[2].second};
      w.prepare_points(points, started);
    }
    // The first two as one launch, the third alone (prepared but stored point by point).
    RunSink::PointBatch last;
    last.push_back(std::move(batch.back()));
    batch.pop_back();
    w.append_points(std::move(batch));
    w.append_point(*last[0].first, std::move(last[0].second));
    w.finish("complete");
  }
  for (const char* f : {"trace.csv", "points.csv"})
    for (const char* m : {"prepared/", "notes/"})
      CHECK_MESSAGE(test::read_file(dir.file(std::string("whole/") + f)) == test::read_file(dir.file(m + std::string(f))),
                    m, f);
  REQUIRE(kept_prepared.points.size() == 3);
  REQUIRE(kept_notes.points.size() == 3);
  for (std::size_t i = 0; i < 3; ++i) CHECK(kept_prepared.points[i].params == kept_whole.points[i].params);
  for (std::size_t i = 0; i < 3; ++i) CHECK(kept_notes.points[i].params == kept_whole.points[i].params);
  CHECK(kept_notes.points[0].param("device_notes") == "launch=per_sm; smem_note=7168 B, \"fills\" the SM");
  CHECK(kept_notes.points[2].param("device_notes") == "late=1");
  CHECK(kept_prepared.points[1].param("axes") == "array.size=2048 B; label=needs \"quotes\", and commas");
}

TEST_CASE("a bundle opened on a worker thread: its header is in bundle.json; a failure is thrown by the first write") {
  TempDir dir;
  TraceSet kept;
  {
    BundleWriter w(dir.file("b"), BundleWriter::DeferredHeader{[] {
                     return nlohmann::json{{"spec", {{"name", "late"}}}, {"device", {{"sm_clock_khz", 1980000}}}};
                   }});
    w.retain_traces(&kept);
    w.append_point(make_point(0, 1024), make_trace(0, 4, 10));
    w.finish("complete");
  }
  const Bundle b = read_bundle(dir.file("b"));
  CHECK(b.header["status"] == "complete");
  CHECK(b.header["spec"]["name"] == "late");
  CHECK(b.header["schema_version"].is_number());
  CHECK(kept.sm_clock_khz == 1980000);  // read from the header once it is there

  BundleWriter failing(dir.file("c"), BundleWriter::DeferredHeader{[]() -> nlohmann::json {
                         throw std::runtime_error("no device description");
                       }});
  failing.prepare_points(std::vector<const Point*>{});  // touches no file: does not wait
  CHECK_THROWS_WITH_AS(failing.append_point(make_point(0, 1024), make_trace(0, 4, 10)), "no device description",
                       std::runtime_error);
}

TEST_CASE("points stored in the background are stored as on the caller's thread, from copies of the points") {
  TempDir dir;
  TraceSet kept_here, kept_background;
  for (const char* mode : {"here", "background"}) {
    const std::string m = mode;
    BundleWriter w(dir.file(m), {});
    w.retain_traces(m == "here" ? &kept_here : &kept_background);
    if (m == "background") w.store_in_background();
    // Ten launches of three points, each launch's points gone once it is stored (an adaptive
    // search's round); more launches than may wait, so the caller waits for the oldest too.
    for (std::size_t launch = 0; launch < 10; ++launch) {
      auto points = std::make_unique<std::vector<Point>>();
      for (std::size_t i = 0; i < 3; ++i) points->push_back(make_point(3 * launch + i, 1024 * (i + 1)));
      RunSink::PointBatch batch;
      std::vector<PointTrace> announced;
      for (const Point& p : *points) {
        PointTrace t = make_trace(p.id, 700 + static_cast<int>(p.id), 0.5 * static_cast<double>(p.id));
        t.params["launch"] = std::to_string(launch);
        announced.push_back(t);
        batch.emplace_back(&p, std::move(t));
      }
      const Point* started[] = {&(*points)[0], &(*points)[1], &(*points)[2]};
      const PointTrace* notes[] = {&announced[0], &announced[1], &announced[2]};
      w.prepare_points(started, notes);
      announced.clear();  // the device's traces change after the announcement
      w.append_points(std::move(batch));
      points.reset();
    }
    w.await_stored();
    CHECK(w.points_written() == 30);
    w.finish("complete");
  }
  for (const char* f : {"trace.csv", "points.csv"})
    CHECK_MESSAGE(test::read_file(dir.file(std::string("here/") + f)) ==
                      test::read_file(dir.file(std::string("background/") + f)),
                  f);
  REQUIRE(kept_background.points.size() == 30);
  for (std::size_t i = 0; i < 30; ++i) CHECK(kept_background.points[i].params == kept_here.points[i].params);
  CHECK(kept_background.points[29].param("device_notes") == "launch=9");
  CHECK(read_bundle(dir.file("background")).header["points_completed"] == 30);

  // A writer that goes away with stores still queued waits for them: the points are on disk.
  {
    BundleWriter gone(dir.file("gone"), {});
    gone.store_in_background();
    for (std::size_t i = 0; i < 12; ++i) gone.append_point(make_point(i, 1024), make_trace(i, 2000, 1));
  }
  const Bundle g = read_bundle(dir.file("gone"));
  CHECK(g.header["status"] == "running");  // never finished: read as a killed run's
  CHECK(g.traces.points.size() == 12);

  // A store that fails is thrown by a later call, not lost.
  BundleWriter failing(dir.file("failing"), BundleWriter::DeferredHeader{[]() -> nlohmann::json {
                         throw std::runtime_error("no device description");
                       }});
  failing.store_in_background();
  failing.append_point(make_point(0, 1024), make_trace(0, 4, 10));
  CHECK_THROWS_WITH_AS(failing.await_stored(), "no device description", std::runtime_error);
}

TEST_CASE("kernel artifacts added from another thread while points are stored (as the CUDA device does)") {
  TempDir dir;
  {
    BundleWriter w(dir.file("b"), BundleWriter::DeferredHeader{[] { return nlohmann::json{{"spec", {{"name", "t"}}}}; }});
    std::vector<Point> points;
    for (std::size_t i = 0; i < 40; ++i) points.push_back(make_point(i, 1024 * (i + 1)));
    std::thread artifacts([&w] {
      for (int k = 0; k < 20; ++k) {
        KernelArtifact a;
        a.name = "kernel-" + std::to_string(k);
        a.source = "extern \"C\" __global__ void k() {}\n";
        a.ptx = ".version 8.0\n";
        w.add_kernel(a);
      }
    });
    for (std::size_t i = 0; i < points.size(); i += 2) {
      RunSink::PointBatch batch;
      batch.emplace_back(&points[i], make_trace(i, 4, 10));
      batch.emplace_back(&points[i + 1], make_trace(i + 1, 4, 11));
      w.append_points(std::move(batch));
    }
    artifacts.join();
    w.finish("complete");
  }
  const Bundle b = read_bundle(dir.file("b"));
  CHECK(b.header["status"] == "complete");
  CHECK(b.traces.points.size() == 40);
  for (int k = 0; k < 20; ++k) {
    CHECK(std::filesystem::exists(dir.file("b/kernels/kernel-" + std::to_string(k) + ".cu")));
    CHECK(std::filesystem::exists(dir.file("b/kernels/kernel-" + std::to_string(k) + ".ptx")));
  }
}

// Damage is never silent (issue 19): what the reader leaves out is said.

namespace {
std::string write_two_point_bundle(const TempDir& dir) {
  const std::string bdir = dir.file("b");
  BundleWriter w(bdir, {});
  w.append_point(make_point(0, 1024), make_trace(0, 8, 100));
  w.append_point(make_point(1, 2048), make_trace(1, 8, 200));
  w.finish("complete");
  return bdir;
}
bool has_warning(const Bundle& b, const std::string& text) {
  return std::any_of(b.warnings.begin(), b.warnings.end(),
                     [&](const std::string& w) { return w.find(text) != std::string::npos; });
}
}  // namespace

TEST_CASE("a bundle left 'running' is recognised as killed once no process writes it") {
  TempDir dir;
  const std::string bdir = dir.file("b");
  {
    BundleWriter w(bdir, {});
    w.append_point(make_point(0, 1024), make_trace(0, 4, 10));
    const Bundle live = read_bundle(bdir);  // the writer holds the bundle: still running
    CHECK_FALSE(live.abandoned);
    CHECK(live.warnings.empty());
  }  // no finish(): the process "died" here
  const Bundle b = read_bundle(bdir);
  CHECK(b.header["status"] == "running");
  CHECK(b.abandoned);
  CHECK(has_warning(b, "the run was killed before it could record how it ended"));
  REQUIRE(b.traces.points.size() == 1);
}

TEST_CASE("a half-truncated trace.csv is reported point by point") {
  TempDir dir;
  const std::string bdir = write_two_point_bundle(dir);
  const auto size = std::filesystem::file_size(bdir + "/trace.csv");
  std::filesystem::resize_file(bdir + "/trace.csv", size / 2);
  const Bundle b = read_bundle(bdir);
  REQUIRE(b.traces.points.size() == 2);
  CHECK(b.warnings.size() == 1);
  CHECK(has_warning(b, "point 1: trace.csv holds " + std::to_string(b.traces.points[1].samples.size()) +
                           " samples, points.csv counts 4 measured ones (trace.csv truncated?)"));
  CHECK_FALSE(has_warning(b, "point 0:"));
}

TEST_CASE("damaged rows in the middle of a file are reported, a torn last line is not") {
  TempDir dir;
  const std::string bdir = write_two_point_bundle(dir);
  std::string trace = dissect::test::read_file(bdir + "/trace.csv");
  trace.insert(trace.find('\n') + 1, "0,0,0,99999999999999999999,5,7,0\n");  // an offset of 2^64 or more
  dir.write("b/trace.csv", trace + "1,0,9,4,9");                                // and a torn tail
  const Bundle b = read_bundle(bdir);
  CHECK(has_warning(b, "trace.csv:2: malformed row"));
  CHECK(b.warnings.size() == 1);
  CHECK(b.torn_rows == std::vector<std::string>{"trace.csv:19"});
}

TEST_CASE("a missing or garbage points.csv is an error, not an empty analysis") {
  TempDir dir;
  const std::string bdir = write_two_point_bundle(dir);
  const std::string points = dissect::test::read_file(bdir + "/points.csv");
  std::filesystem::remove(bdir + "/points.csv");
  CHECK_THROWS_WITH_AS(read_bundle(bdir), doctest::Contains("points.csv: missing"), std::runtime_error);
  dir.write("b/points.csv", "\x7f\x45\x4c\x46 garbage,\x01\x02\n\xff\xfe,,,\n");
  CHECK_THROWS_WITH_AS(read_bundle(bdir), doctest::Contains("points.csv:1: header has no point_id column"),
                       std::runtime_error);
  dir.write("b/points.csv", "");
  CHECK_THROWS_WITH_AS(read_bundle(bdir), doctest::Contains("empty, but bundle.json says 2 points"),
                       std::runtime_error);
  // One row lost: bundle.json and points.csv disagree.
  dir.write("b/points.csv", points.substr(0, points.rfind('\n', points.size() - 2) + 1));
  const Bundle b = read_bundle(bdir);
  CHECK(b.traces.points.size() == 1);
  CHECK(has_warning(b, "bundle.json says 2 points were completed, points.csv commits 1"));
}

TEST_CASE("bundle.json with wrong types is an error naming the field") {
  TempDir dir;
  const std::string bdir = write_two_point_bundle(dir);
  dir.write("b/bundle.json", R"({"schema_version": "1"})");
  CHECK_THROWS_WITH_AS(read_bundle(bdir), doctest::Contains("'schema_version' is \"1\", expected a whole number"),
                       std::runtime_error);
  dir.write("b/bundle.json", R"({"schema_version": 1, "status": 3})");
  CHECK_THROWS_WITH_AS(read_bundle(bdir), doctest::Contains("'status' is 3, expected a string"), std::runtime_error);
  dir.write("b/bundle.json", R"({"schema_version": 1, "device": [1], "status": "complete"})");
  CHECK_THROWS_WITH_AS(read_bundle(bdir), doctest::Contains("'device' is [1], expected an object"),
                       std::runtime_error);
  dir.write("b/bundle.json", R"([1, 2])");
  CHECK_THROWS_WITH_AS(read_bundle(bdir), doctest::Contains("not a JSON object"), std::runtime_error);
}

TEST_CASE("a bundle reopened for resumption is cut back to its committed points, then appended to") {
  TempDir dir;
  const std::string bdir = dir.file("b");
  {
    BundleWriter w(bdir, {{"spec", {{"path", "x.yaml"}}}});
    w.append_point(make_point(0, 1024), make_trace(0, 8, 100));
    w.append_point(make_point(1, 2048), make_trace(1, 8, 200));
  }  // killed: no finish()
  {
    // What a kill in the middle of a batch leaves: samples of point 2, half its row.
    std::ofstream t(bdir + "/trace.csv", std::ios::app);
    t << "2,0,0,0,999,7,0\n2,0,1,4,999,7,0\n2,0,2,";
    std::ofstream p(bdir + "/points.csv", std::ios::app);
    p << "2,ok,pch";
  }
  const std::string committed_points = [&] {
    const std::string p = dissect::test::read_file(bdir + "/points.csv");
    return p.substr(0, p.rfind('\n') + 1);
  }();
  {
    BundleWriter w(bdir, BundleWriter::Resume{}, {{"at", "now"}});
    CHECK(w.committed_before() == std::set<std::size_t>{0, 1});
    CHECK(w.points_written() == 2);
    CHECK(dissect::test::read_file(bdir + "/points.csv") == committed_points);
    CHECK(read_bundle(bdir).header["status"] == "running");
    CHECK_FALSE(read_bundle(bdir).abandoned);  // held again
    w.append_point(make_point(2, 4096), make_trace(2, 8, 300));
    w.finish("complete");
  }
  const Bundle b = read_bundle(bdir);
  CHECK(b.warnings.empty());
  CHECK(b.header["status"] == "complete");
  CHECK(b.header["points_completed"] == 3);
  CHECK(b.header["resumed"] == nlohmann::json::array({{{"at", "now"}}}));
  REQUIRE(b.traces.points.size() == 3);
  REQUIRE(b.traces.points[2].samples.size() == 8);  // the orphaned samples of the killed batch are gone
  CHECK(b.traces.points[2].samples[0].latency == 300);
  const std::string points = dissect::test::read_file(bdir + "/points.csv");
  CHECK(points.find("point_id", 1) == std::string::npos);  // one header
}

TEST_CASE("a bundle another process writes cannot be reopened") {
  TempDir dir;
  const std::string bdir = dir.file("b");
  BundleWriter w(bdir, {});
  CHECK_THROWS_WITH_AS(BundleWriter(bdir, BundleWriter::Resume{}, {}), doctest::Contains("another process is writing"),
                       std::runtime_error);
}
