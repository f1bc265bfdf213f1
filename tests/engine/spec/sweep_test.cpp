#include <doctest/doctest.h>

#include "engine/spec/spec.hpp"

using namespace dissect;

namespace {

std::string errors_of(const std::string& text, const LoadOptions& o = {}) {
  try {
    (void)load_spec_text(text, "t.yaml", o);
    return "";
  } catch (const SpecError& e) {
    return e.diagnostics().str();
  }
}

std::vector<std::uint64_t> sizes(const std::vector<Point>& pts) {
  std::vector<std::uint64_t> out;
  for (const auto& p : pts) out.push_back(p.experiment.array.size_bytes);
  return out;
}

}  // namespace

TEST_CASE("linear range includes both ends when reachable") {
  const Spec s = load_spec_text(
      "dissect: 1\narray: {size: 1 KiB}\nsweep:\n  array.size: {from: 12 KiB, to: 13 KiB, step: 256 B}\n", "t");
  CHECK(s.point_count() == 5);
  CHECK(sizes(s.expand()) == std::vector<std::uint64_t>{12288, 12544, 12800, 13056, 13312});
}

TEST_CASE("linear range stops before overshooting 'to'") {
  const Spec s =
      load_spec_text("dissect: 1\narray: {size: 1 KiB}\nsweep:\n  array.size: {from: 1 KiB, to: 2000 B, step: 512 B}\n",
                     "t");
  CHECK(sizes(s.expand()) == std::vector<std::uint64_t>{1024, 1536});
}

TEST_CASE("a one-value range and a scalar axis give one point") {
  CHECK(load_spec_text("dissect: 1\narray: {size: 1 KiB}\nsweep:\n  array.size: {from: 2 KiB, to: 2 KiB, step: 1 KiB}\n",
                       "t")
            .point_count() == 1);
  CHECK(load_spec_text("dissect: 1\narray: {size: 1 KiB}\nsweep:\n  array.size: 4 KiB\n", "t").expand()[0]
            .experiment.array.size_bytes == 4096);
}

TEST_CASE("geometric range") {
  const Spec s = load_spec_text(
      "dissect: 1\narray: {size: 1 KiB}\nsweep:\n  array.size: {from: 1 KiB, to: 1 MiB, factor: 2}\n", "t");
  CHECK(s.point_count() == 11);
  const auto v = sizes(s.expand());
  CHECK(v.front() == 1024);
  CHECK(v.back() == 1u << 20);
  const Spec f = load_spec_text(
      "dissect: 1\narray: {size: 1 KiB}\nsweep:\n  iterations: {from: 10, to: 40, factor: 1.5}\n", "t");
  std::vector<std::uint64_t> it;
  for (const auto& p : f.expand()) it.push_back(p.experiment.iterations);
  CHECK(it == std::vector<std::uint64_t>{10, 15, 23, 34});
}

TEST_CASE("a unit on the axis applies to bare numbers") {
  const Spec s = load_spec_text(
      "dissect: 1\narray: {size: 1 KiB}\nsweep:\n  array.size: {from: 3080, to: 3104, step: 8, unit: elements}\n", "t");
  CHECK(sizes(s.expand()) == std::vector<std::uint64_t>{3080 * 4, 3088 * 4, 3096 * 4, 3104 * 4});
}

TEST_CASE("several axes form a cartesian product, first axis outermost") {
  const Spec s = load_spec_text(R"(dissect: 1
array: {size: 64 KiB}
sweep:
  array.size: [16 KiB, 32 KiB]
  array.stride: [4 B, 128 B, 256 B]
)",
                                "t");
  const auto pts = s.expand();
  REQUIRE(pts.size() == 6);
  CHECK(pts[0].experiment.array.size_bytes == 16384);
  CHECK(pts[0].experiment.array.stride_bytes == 4);
  CHECK(pts[2].experiment.array.stride_bytes == 256);
  CHECK(pts[3].experiment.array.size_bytes == 32768);
  CHECK(pts[5].id == 5);
  REQUIRE(pts[4].axis_values.size() == 2);
  CHECK(pts[4].axis_values[0] == std::make_pair(std::string("array.size"), std::string("32 KiB")));
}

TEST_CASE("zipped axes advance together") {
  const Spec s = load_spec_text(R"(dissect: 1
array: {size: 64 KiB}
sweep:
  zip:
    - {array.size: [3073, 3080, 3112], array.stride: [1, 8, 8], unit: elements}
  iterations: [1024, 4096]
)",
                                "t");
  const auto pts = s.expand();
  REQUIRE(pts.size() == 6);
  CHECK(pts[0].experiment.array.size_bytes == 3073 * 4);
  CHECK(pts[0].experiment.array.stride_bytes == 4);
  CHECK(pts[1].experiment.iterations == 4096);
  CHECK(pts[2].experiment.array.size_bytes == 3080 * 4);
  CHECK(pts[2].experiment.array.stride_bytes == 32);
}

TEST_CASE("zip groups need equal lengths") {
  CHECK(errors_of("dissect: 1\narray: {size: 64 KiB}\nsweep:\n  zip:\n    - {array.size: [1 KiB, 2 KiB], "
                  "array.stride: [4 B]}\n")
            .find("'array.stride' has 1 values but 'array.size' has 2") != std::string::npos);
}

TEST_CASE("a sweep path that enters a list by a word, not an index, is an error, not a crash") {
  // The fuzzer's reproducer (fuzz/corpus/spec_loader/sweep_path_word_into_list.yaml).
  const std::string e = errors_of(
      "dissect: 1\nkernel: phases\nlayout: {threads: 64, chasers: all}\narrays:\n  base: {size: 1 KiB}\n"
      "phases:\n  - {thread: 0, array: base, action: warm}\n  - {thread: 0, array: base, action: measure}\n"
      "sweep:\n  phases.1thr.ead: [32, 64]\n");
  CHECK_FALSE(e.empty());
  CHECK(e.find("phases.1thr.ead") != std::string::npos);
}

TEST_CASE("sweeping a non-numeric field over a list works (load paths)") {
  const Spec s = load_spec_text("dissect: 1\narray: {size: 1 KiB}\nsweep:\n  path: [ca, cg]\n", "t");
  const auto pts = s.expand();
  REQUIRE(pts.size() == 2);
  CHECK(pts[1].experiment.path == LoadPath::cg);
  CHECK(pts[1].experiment.target == Target::l2);
}

TEST_CASE("the point limit is checked before expanding, with the count") {
  const std::string e = errors_of(R"(dissect: 1
array: {size: 1 MiB}
sweep:
  array.size: {from: 1 KiB, to: 1 MiB, step: 1 KiB}
  array.stride: {from: 4 B, to: 1 KiB, step: 4 B}
)");
  CHECK(e.find("t.yaml:3:1: sweep expands to 262144 points, more than the limit of 100000") != std::string::npos);
  LoadOptions o;
  o.max_points = 10;
  CHECK(errors_of("dissect: 1\narray: {size: 1 MiB}\nsweep:\n  iterations: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11]\n", o)
            .find("sweep expands to 11 points, more than the limit of 10") != std::string::npos);
  CHECK(errors_of("dissect: 1\nmax_points: 3\narray: {size: 1 MiB}\nsweep:\n  iterations: [1, 2, 3, 4]\n")
            .find("limit of 3") != std::string::npos);
}

TEST_CASE("a huge single axis is refused without materialising it") {
  CHECK(errors_of("dissect: 1\narray: {size: 1 KiB}\nsweep:\n  array.size: {from: 4 B, to: 64 GiB, step: 4 B}\n")
            .find("the range has 17179869184 values, more than the point limit") != std::string::npos);
}

TEST_CASE("a bad value at one sweep point names the value and the point") {
  const std::string e = errors_of(R"(dissect: 1
array: {size: 4 KiB}
sweep:
  array.stride: [4 B, 8 KiB, 16 KiB]
)");
  CHECK(e.find("t.yaml:4:23: array.stride (8 KiB) is larger than the array size N (4 KiB) (at sweep point "
               "array.stride=8 KiB)") != std::string::npos);
  CHECK(e.find("array.stride (16 KiB)") != std::string::npos);
}

TEST_CASE("the same error at many points is reported once with a count") {
  const std::string e = errors_of(R"(dissect: 1
array: {size: 4 KiB}
sweep:
  array.stride: [8 KiB]
  iterations: [1, 2, 3]
)");
  CHECK(e.find("and 2 more points") != std::string::npos);
}

TEST_CASE("sweep errors") {
  CHECK(errors_of("dissect: 1\narray: {size: 1 KiB}\nsweep:\n  array.sise: [1 KiB]\n")
            .find("t.yaml:4:3: sweep: unknown field 'array.sise'; did you mean 'array.size'?") != std::string::npos);
  CHECK(errors_of("dissect: 1\narray: {size: 1 KiB}\nsweep:\n  array.size: {from: 2 KiB, to: 1 KiB, step: 1 KiB}\n")
            .find("'to' is smaller than 'from'") != std::string::npos);
  CHECK(errors_of("dissect: 1\narray: {size: 1 KiB}\nsweep:\n  array.size: {from: 1 KiB, to: 2 KiB}\n")
            .find("takes either step (linear) or factor (geometric), not neither") != std::string::npos);
  CHECK(errors_of("dissect: 1\narray: {size: 1 KiB}\nsweep:\n  array.size: {from: 1 KiB, to: 2 KiB, step: 0 B}\n")
            .find("step must be larger than zero") != std::string::npos);
  CHECK(errors_of("dissect: 1\narray: {size: 1 KiB}\nsweep:\n  array.size: {from: 1 KiB, to: 8 KiB, factor: 1}\n")
            .find("factor must be larger than 1") != std::string::npos);
  CHECK(errors_of("dissect: 1\narray: {size: 1 KiB}\nsweep:\n  array.size: {from: 1 KiB, to: 8 KiB, stp: 1}\n")
            .find("unknown key 'stp'; did you mean 'step'?") != std::string::npos);
  CHECK(errors_of("dissect: 1\narray: {size: 1 KiB}\nsweep:\n  array.size: []\n").find("the list of values is empty") !=
        std::string::npos);
  CHECK(errors_of("dissect: 1\narray: {size: 1 KiB}\nsweep:\n  array.size: {from: 1 KiB, to: 8, step: 1 KiB}\n")
            .find("from and to must count the same thing") != std::string::npos);
  CHECK(errors_of("dissect: 1\narray: {size: 1 KiB}\nsweep:\n  array.size: [1 KiB]\n  zip: [{array.size: [1 KiB], "
                  "iterations: [1]}]\n")
            .find("field 'array.size' is swept twice") != std::string::npos);
}

TEST_CASE("an adaptive search axis is a marker: counted, not expanded in advance") {
  const Spec s = load_spec_text(R"(dissect: 1
array: {size: 1 KiB}
sweep:
  array.size: {search: knee, from: 1 KiB, to: 1 MiB, resolution: 128 B}
  array.stride: [4 B, 128 B]
)",
                                "t");
  CHECK(s.adaptive());
  CHECK(s.point_count() == 2);
  CHECK_THROWS_AS((void)s.expand(), SpecError);
  CHECK(errors_of("dissect: 1\narray: {size: 1 KiB}\nsweep:\n  array.size: {search: bisect, from: 1 KiB, to: 2 KiB}\n")
            .find("search goal must be 'knee'") != std::string::npos);
  // A resolution may be a share of the bracket (adaptive_search.cpp); a bad one names its place.
  CHECK(errors_of("dissect: 1\narray: {size: 1 KiB}\nsweep:\n  array.size: {search: knee, from: 1 KiB, to: 2 KiB, "
                  "resolution: 2%}\n")
            .empty());
  const std::string bad = errors_of(
      "dissect: 1\narray: {size: 1 KiB}\nsweep:\n  array.size: {search: knee, from: 1 KiB, to: 2 KiB, resolution: x%}\n");
  CHECK(bad.find("a share must be a number between 0 and 100") != std::string::npos);
  CHECK(bad.find(":4:") != std::string::npos);
}

TEST_CASE("skip_invalid leaves out invalid combinations (Saavedra grid: s <= N)") {
  const Spec s = load_spec_text(R"(dissect: 1
array: {size: 1 KiB}
sweep:
  skip_invalid: true
  array.size: [1 KiB, 2 KiB, 4 KiB]
  array.stride: [1 KiB, 2 KiB, 4 KiB]
)",
                                "t");
  CHECK(s.point_count() == 6);
  CHECK(s.skipped_points == 3);
  const auto pts = s.expand();
  REQUIRE(pts.size() == 6);
  for (std::size_t i = 0; i < pts.size(); ++i) {
    CHECK(pts[i].id == i);
    CHECK(pts[i].experiment.array.stride_bytes <= pts[i].experiment.array.size_bytes);
  }
  CHECK(errors_of("dissect: 1\narray: {size: 1 KiB}\nsweep:\n  skip_invalid: true\n  array.stride: [4 KiB]\n")
            .find("every combination is invalid") != std::string::npos);
  CHECK(errors_of("dissect: 1\narray: {size: 1 KiB}\nsweep:\n  skip_invalid: maybe\n  array.stride: [4 B]\n")
            .find("skip_invalid: expected true or false") != std::string::npos);
}

TEST_CASE("a sweep can reach into a list: phases.N.field") {
  const Spec s = load_spec_text(R"(dissect: 1
kernel: phases
layout: {threads: 128}
arrays:
  a: {path: tex, size: 8 KiB, stride: 32 B}
  b: {path: tex, size: 8 KiB, stride: 32 B}
phases:
  - {thread: 0, array: a, action: warm}
  - {thread: 32, array: b, action: warm}
  - {thread: 0, array: a, action: measure}
sweep:
  phases.1.thread: [32, 64, 96]
)",
                                "t");
  const auto pts = s.expand();
  REQUIRE(pts.size() == 3);
  CHECK(pts[2].experiment.phases[1].thread == 96);
  CHECK(errors_of("dissect: 1\nkernel: phases\narrays: {a: {size: 1 KiB}}\nphases: [{array: a, action: measure}]\n"
                  "sweep:\n  phases.5.thread: [1]\n")
            .find("does not name a field of this spec") != std::string::npos);
}
