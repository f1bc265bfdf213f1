// Every validation error of the spec language: each names file:line:col.
#include <doctest/doctest.h>

#include <algorithm>

#include "engine/spec/spec.hpp"
#include "engine/spec/point_params.hpp"

using namespace dissect;

namespace {

// Loads a spec and returns all error lines ("" when valid).
std::string errors_of(const std::string& text) {
  try {
    (void)load_spec_text(text, "t.yaml");
    return "";
  } catch (const SpecError& e) {
    return e.diagnostics().str();
  }
}

const char* kValid = R"(dissect: 1
name: ok
path: ca
array: {size: 16 KiB, stride: 128 B}
iterations: 1024
)";

}  // namespace

TEST_CASE("a minimal spec decodes with sensible defaults") {
  const Spec s = load_spec_text(kValid, "t.yaml");
  const Experiment& e = s.base;
  CHECK(e.name == "ok");
  CHECK(e.path == LoadPath::ca);
  CHECK(e.array.size_bytes == 16384);
  CHECK(e.array.stride_bytes == 128);
  CHECK(e.iterations == 1024);
  CHECK(e.warmup == 1);
  CHECK(e.target == Target::l1);          // implied by path ca
  CHECK(e.carveout == kCarveoutMaxL1);    // L1 experiments default to the largest L1
  CHECK_FALSE(e.carveout_explicit);
  CHECK(e.layout.chasers == std::vector<std::uint32_t>{0});
  CHECK(s.point_count() == 1);
}

TEST_CASE("element counts resolve with the element type") {
  const Spec s = load_spec_text("dissect: 1\nelement: u64\narray: {size: 3073 elements, stride: 1 el}\n", "t.yaml");
  CHECK(s.base.array.size_bytes == 3073 * 8);
  CHECK(s.base.array.stride_bytes == 8);
}

TEST_CASE("stride defaults to one element; L2 paths default to the driver's carveout") {
  const Spec s = load_spec_text("dissect: 1\npath: cg\narray: {size: 1 MiB}\n", "t.yaml");
  CHECK(s.base.array.stride_bytes == 4);
  CHECK(s.base.target == Target::l2);
  CHECK(s.base.carveout == kCarveoutDriverDefault);
}

TEST_CASE("YAML syntax errors carry the parser's line and column") {
  const std::string e = errors_of("dissect: 1\narray: {size: 16 KiB\n");
  CHECK(e.find("t.yaml:3:1: YAML syntax error") != std::string::npos);
}

TEST_CASE("unknown keys suggest the closest known key") {
  const std::string e = errors_of("dissect: 1\npth: ca\narray: {size: 1 KiB, strde: 4 B}\n");
  CHECK(e.find("t.yaml:2:1: unknown key 'pth'; did you mean 'path'?") != std::string::npos);
  CHECK(e.find("t.yaml:3:22: unknown key 'array.strde'; did you mean 'array.stride'?") != std::string::npos);
}

TEST_CASE("far-off unknown keys get no silly suggestion") {
  const std::string e = errors_of("dissect: 1\nzebra_mode: 3\narray: {size: 1 KiB}\n");
  CHECK(e.find("unknown key 'zebra_mode'") != std::string::npos);
  CHECK(e.find("did you mean") == std::string::npos);
}

TEST_CASE("wrong types") {
  CHECK(errors_of("dissect: 1\narray: {size: 1 KiB}\niterations: [1, 2]\n")
            .find("t.yaml:3:13: iterations: expected a whole number, got a list") != std::string::npos);
  CHECK(errors_of("dissect: 1\narray: {size: 1 KiB}\niterations: many\n").find("t.yaml:3:13: iterations:") !=
        std::string::npos);
  CHECK(errors_of("dissect: 1\narray: 16 KiB\n").find("t.yaml:2:8: array.: expected a mapping") == std::string::npos);
  CHECK(errors_of("dissect: 1\narray: 16 KiB\n").find("t.yaml:2:8: array: expected a mapping") != std::string::npos);
  CHECK(errors_of("dissect: 1\narray: {size: 1 KiB}\nparallel: maybe\n").find("'maybe' is not true or false") !=
        std::string::npos);
}

TEST_CASE("bad units and bad enum values") {
  CHECK(errors_of("dissect: 1\narray: {size: 16 KiBB}\n").find("t.yaml:2:15: array.size: unknown unit 'KiBB'") !=
        std::string::npos);
  CHECK(errors_of("dissect: 1\narray: {size: 16}\n").find("array.size: '16' needs a unit") != std::string::npos);
  CHECK(errors_of("dissect: 1\npath: cq\narray: {size: 1 KiB}\n")
            .find("t.yaml:2:7: path: unknown value 'cq'; did you mean 'ca'?") != std::string::npos);
  CHECK(errors_of("dissect: 1\nelement: f32\narray: {size: 1 KiB}\n").find("element: unknown value 'f32'") !=
        std::string::npos);
}

TEST_CASE("zero and negative sizes") {
  CHECK(errors_of("dissect: 1\narray: {size: 0 B}\n").find("t.yaml:2:15: array.size must be larger than zero") !=
        std::string::npos);
  CHECK(errors_of("dissect: 1\narray: {size: -4 KiB}\n").find("array.size: must not be negative") !=
        std::string::npos);
  CHECK(errors_of("dissect: 1\narray: {size: 1 KiB, stride: 0 B}\n").find("array.stride must be larger than zero") !=
        std::string::npos);
  CHECK(errors_of("dissect: 1\narray: {size: 1 KiB}\niterations: 0\n").find("iterations must be at least 1") !=
        std::string::npos);
}

TEST_CASE("missing array size") {
  CHECK(errors_of("dissect: 1\npath: ca\n").find("array.size is required") != std::string::npos);
}

TEST_CASE("stride larger than N") {
  CHECK(errors_of("dissect: 1\narray: {size: 1 KiB, stride: 2 KiB}\n")
            .find("t.yaml:2:30: array.stride (2 KiB) is larger than the array size N (1 KiB)") != std::string::npos);
}

TEST_CASE("sizes must be whole elements") {
  CHECK(errors_of("dissect: 1\nelement: u64\narray: {size: 1 KiB, stride: 12 B}\n")
            .find("array.stride (12 B) must be a whole number of elements (8 B each)") != std::string::npos);
}

TEST_CASE("more samples than the sample buffer allows") {
  const std::string e =
      errors_of("dissect: 1\narray: {size: 1 KiB}\niterations: 1000000\nlayout: {threads: 32, chasers: all}\n");
  CHECK(e.find("t.yaml:3:13: iterations: 1000000 timed accesses x 32 chasing threads x 1 repeats = 32000000 "
               "samples per pchase point, more than the sample buffer allows (max_samples = 16777216)") != std::string::npos);
}

TEST_CASE("samples per point depend on what the kernel records") {
  // throughput: one sample per warp, however many loads each warp makes
  const Spec t = load_spec_text(
      "dissect: 1\nkernel: throughput\npath: cg\narray: {size: 1 GiB}\niterations: 100000\n"
      "layout: {blocks: 1024, threads: 256, chasers: all}\n",
      "t.yaml");
  CHECK(t.base.samples_per_point() == 1024 * 8);
  // shared_stride: one sample per lane per repeat; stride 0 (broadcast) is allowed
  const Spec s = load_spec_text(
      "dissect: 1\nkernel: shared_stride\narray: {size: 8 KiB, stride: 0 B}\nlayout: {threads: 32}\nrepeats: 3\n",
      "t.yaml");
  CHECK(s.base.samples_per_point() == 96);
  CHECK(s.base.path == LoadPath::shared);
  // the last lane must stay inside the array
  CHECK(errors_of("dissect: 1\nkernel: shared_stride\narray: {size: 1 KiB, stride: 64 B}\nlayout: {threads: 32}\n")
            .find("x 31 lanes reaches beyond the array") != std::string::npos);
  // stride 0 stays an error for chases
  CHECK(errors_of("dissect: 1\narray: {size: 1 KiB, stride: 0 B}\n").find("array.stride must be larger than zero") !=
        std::string::npos);
}

TEST_CASE("contradictory settings") {
  CHECK(errors_of("dissect: 1\narray: {size: 1 KiB, pattern: list}\n").find("pattern list needs array.indices") !=
        std::string::npos);
  CHECK(errors_of("dissect: 1\narray: {size: 1 KiB, indices: [0, 8]}\n")
            .find("array.indices only applies to pattern list") != std::string::npos);
  CHECK(errors_of("dissect: 1\narray: {size: 8 MiB, pattern: page_strided}\n")
            .find("pattern page_strided needs array.page") != std::string::npos);
  CHECK(errors_of("dissect: 1\narray: {size: 8 MiB, page: 2 MiB}\n").find("array.page only applies to patterns "
                                                                          "page_strided and page_random") !=
        std::string::npos);
  CHECK(errors_of("dissect: 1\narray: {size: 8 MiB, pattern: page_random}\n")
            .find("pattern page_random needs array.page") != std::string::npos);
  CHECK(errors_of("dissect: 1\narray: {size: 8 KiB, stride: 512 B, page: 256 B, pattern: page_random}\n")
            .find("must lie in (0, page = 256 B] with pattern page_random") != std::string::npos);
  CHECK(errors_of("dissect: 1\narray: {size: 8 KiB, stride: 4 B, page: 256 B, pattern: page_random, seed: 3}\n")
            .empty());
  CHECK(errors_of("dissect: 1\narray: {size: 8 KiB, stride: 4 B, seed: 3}\n")
            .find("seed only applies to patterns random and page_random") != std::string::npos);
  CHECK(errors_of("dissect: 1\npath: const\narray: {size: 128 KiB}\n").find("exceeds the 64 KiB constant bank") !=
        std::string::npos);
  CHECK(errors_of("dissect: 1\nkernel: shared_stride\npath: ca\narray: {size: 1 KiB}\n")
            .find("kernel shared_stride reads shared memory; path must be shared") != std::string::npos);
  CHECK(errors_of("dissect: 1\nkernel: throughput\ntiming: {mode: chain}\narray: {size: 1 KiB}\n")
            .find("timing.mode chain only applies to kernel pchase") != std::string::npos);
  CHECK(errors_of("dissect: 1\nkernel: throughput\ntiming: {mode: on_chip}\narray: {size: 1 KiB}\n")
            .find("timing.mode on_chip only applies to kernel pchase") != std::string::npos);
  CHECK(errors_of("dissect: 1\ntiming: {mode: on_chip}\narray: {size: 1 KiB}\niterations: 7000\n").empty());
  // timing.unit: the cycles one recorded byte counts, on chip only, a power of two to 64.
  CHECK(errors_of("dissect: 1\ntiming: {mode: on_chip, unit: 16}\narray: {size: 1 KiB}\n").empty());
  CHECK(errors_of("dissect: 1\ntiming: {mode: per_access, unit: 4}\narray: {size: 1 KiB}\n")
            .find("timing.unit applies to timing.mode on_chip") != std::string::npos);
  CHECK(errors_of("dissect: 1\ntiming: {mode: on_chip, unit: 6}\narray: {size: 1 KiB}\n")
            .find("timing.unit must be a power of two") != std::string::npos);
  CHECK(errors_of("dissect: 1\ntiming: {mode: on_chip, unit: 128}\narray: {size: 1 KiB}\n")
            .find("timing.unit must be at most 64") != std::string::npos);
  CHECK(errors_of("dissect: 1\ntiming: {mode: on_chip}\narray: {size: 1 KiB}\niterations: 200000\n"
                  "layout: {threads: 2, chasers: 2}\n")
            .find("on_chip keeps one byte per timed access of every chasing thread") != std::string::npos);
  CHECK(errors_of("dissect: 1\narray: {size: 1 KiB}\nlayout: {threads: 4, chasers: [0, 7]}\n")
            .find("layout.chasers: thread 7 does not exist") != std::string::npos);
  CHECK(errors_of("dissect: 1\narray: {size: 1 KiB}\niterations: 256\ndiscard: 1\n")
            .find("discard: 1 pass(es) of 256 accesses would drop all 256 timed accesses") != std::string::npos);
  CHECK(errors_of("dissect: 1\narray: {size: 1 KiB}\narrays: {a: {size: 1 KiB}}\n")
            .find("arrays: only the phases kernel uses named arrays") != std::string::npos);
}

TEST_CASE("warmup_by block: pchase, a pass the block can list, a path into memory") {
  CHECK(errors_of("dissect: 1\npath: cg\narray: {size: 1 MiB, stride: 64 B}\nwarmup_by: block\n"
                  "layout: {threads: 256}\n")
            .empty());
  CHECK(errors_of("dissect: 1\narray: {size: 1 MiB, stride: 64 B, pattern: random}\nwarmup_by: block\n").empty());
  CHECK(errors_of("dissect: 1\narray: {size: 1 MiB}\nwarmup_by: blocks\n").find("warmup_by") != std::string::npos);
  CHECK(errors_of("dissect: 1\nkernel: throughput\narray: {size: 1 MiB}\nwarmup_by: block\n")
            .find("warmup_by: block applies to kernel pchase (kernel is throughput)") != std::string::npos);
  CHECK(errors_of("dissect: 1\narray: {size: 8 MiB, stride: 4 B, page: 2 MiB, pattern: page_random}\n"
                  "warmup_by: block\n")
            .find("warmup_by: block needs array.pattern sequential or random") != std::string::npos);
  CHECK(errors_of("dissect: 1\npath: shared\narray: {size: 1 KiB}\nwarmup_by: block\n")
            .find("path shared copies the array into shared memory") != std::string::npos);
  CHECK(errors_of("dissect: 1\narray: {size: 1 MiB, stride: 64 B}\nwarmup_by: block\n"
                  "layout: {threads: 2, chasers: 2, thread_offset: 32 B}\n")
            .find("layout.thread_offset to be a multiple of array.stride") != std::string::npos);
  CHECK(errors_of("dissect: 1\narray: {size: 1000 B, stride: 64 B, pattern: random}\nwarmup_by: block\n"
                  "layout: {threads: 2, chasers: 2, thread_offset: 64 B}\n")
            .find("array.size to be a multiple of array.stride") != std::string::npos);
  CHECK(errors_of("dissect: 1\narray: {size: 1000 B, stride: 64 B, pattern: random}\nwarmup_by: block\n").empty());
  CHECK(errors_of("dissect: 1\narray: {size: 1 MiB}\nwarmup: 0\nwarmup_by: block\n")
            .find("warmup_by: block with warmup: 0 warms nothing") != std::string::npos);
}

TEST_CASE("layout.array per_block: pchase on a global path, blocks kept apart by the shared configuration") {
  const Spec s = load_spec_text("dissect: 1\npath: cg\ntarget: tlb\narray: {size: 1 MiB, stride: 64 B}\n"
                                "layout: {blocks: 4, array: per_block}\n",
                                "t.yaml");
  CHECK(s.base.layout.array == BlockArrays::per_block);
  CHECK(s.base.carveout == kCarveoutMaxL1);  // auto: the most L1, as for SM-private targets
  CHECK(load_spec_text("dissect: 1\npath: cg\narray: {size: 1 MiB}\n", "t.yaml").base.layout.array ==
        BlockArrays::shared);
  CHECK(errors_of("dissect: 1\narray: {size: 1 MiB}\nlayout: {array: own}\n").find("layout.array") !=
        std::string::npos);
  CHECK(errors_of("dissect: 1\nkernel: throughput\narray: {size: 1 MiB}\nlayout: {array: per_block}\n")
            .find("layout.array: per_block applies to kernel pchase (kernel is throughput)") != std::string::npos);
  CHECK(errors_of("dissect: 1\npath: tex\narray: {size: 1 MiB}\nlayout: {array: per_block}\n")
            .find("layout.array: per_block needs a global load path") != std::string::npos);
  CHECK(errors_of("dissect: 1\npath: cg\narray: {size: 1 MiB}\nlayout: {array: per_block}\ncarveout: default\n")
            .find("carveout default leaves that to the driver") != std::string::npos);
}

TEST_CASE("layout.copy_stride: where the blocks' copies lie, checked against the array") {
  const std::string base = "dissect: 1\npath: cg\narray: {size: 200 KiB, stride: 128 B}\n";
  CHECK(load_spec_text(base + "layout: {blocks: 4, array: per_block}\n", "t.yaml").base.layout.copy_stride_bytes == 0);
  CHECK(load_spec_text(base + "layout: {blocks: 4, array: per_block, copy_stride: auto}\n", "t.yaml")
            .base.layout.copy_stride_bytes == 0);
  CHECK(load_spec_text(base + "layout: {blocks: 4, array: per_block, copy_stride: 512 KiB}\n", "t.yaml")
            .base.layout.copy_stride_bytes == 512 * 1024);
  CHECK(errors_of(base + "layout: {blocks: 4, copy_stride: 512 KiB}\n")
            .find("layout.copy_stride places the blocks' copies of the array: it needs layout.array: per_block") !=
        std::string::npos);
  CHECK(errors_of(base + "layout: {blocks: 4, array: per_block, copy_stride: 300000 B}\n")
            .find("must be a multiple of 128 B") != std::string::npos);
  CHECK(errors_of(base + "layout: {blocks: 4, array: per_block, copy_stride: 128 KiB}\n")
            .find("is smaller than array.size (200 KiB): the blocks' copies would overlap") != std::string::npos);
  CHECK(errors_of(base + "layout: {blocks: 4, array: per_block, copy_stride: 0}\n").find("layout.copy_stride") !=
        std::string::npos);
  // Swept, each point is checked against its own size; a knee search at its bounds, before
  // it runs.
  CHECK(errors_of(base + "layout: {blocks: 4, array: per_block, copy_stride: 256 KiB}\n"
                         "sweep: {array.size: [128 KiB, 384 KiB]}\n")
            .find("the blocks' copies would overlap") != std::string::npos);
  const std::string knee = errors_of(base + "layout: {blocks: 4, array: per_block, copy_stride: 256 KiB}\n"
                                            "sweep: {array.size: {search: knee, from: 128 KiB, to: 1 MiB}}\n");
  CHECK(knee.find("the blocks' copies would overlap") != std::string::npos);
  CHECK(knee.find("array.size=1 MiB") != std::string::npos);
  CHECK(errors_of(base + "layout: {blocks: 4, array: per_block, copy_stride: 1 MiB}\n"
                         "sweep: {array.size: {search: knee, from: 128 KiB, to: 1 MiB}}\n")
            .empty());
}

TEST_CASE("list pattern offsets must lie inside the array") {
  CHECK(errors_of("dissect: 1\narray: {size: 1 KiB, pattern: list, indices: [0, 300]}\n")
            .find("array.indices: offset 1200 B is not an element inside the array") != std::string::npos);
  const Spec s = load_spec_text("dissect: 1\narray: {size: 1 KiB, pattern: list, indices: [0, 128 B, 3]}\n", "t.yaml");
  CHECK(s.base.array.indices_bytes == std::vector<std::uint64_t>{0, 128, 12});
}

TEST_CASE("carveout forms") {
  CHECK(load_spec_text("dissect: 1\narray: {size: 1 KiB}\ncarveout: max_shared\n", "t").base.carveout ==
        kCarveoutMaxShared);
  CHECK(load_spec_text("dissect: 1\narray: {size: 1 KiB}\ncarveout: 25%\n", "t").base.carveout == 25);
  CHECK(load_spec_text("dissect: 1\narray: {size: 1 KiB}\ncarveout: default\n", "t").base.carveout ==
        kCarveoutDriverDefault);
  CHECK(errors_of("dissect: 1\narray: {size: 1 KiB}\ncarveout: 150\n").find("carveout: '150' is not") !=
        std::string::npos);
}

TEST_CASE("phases kernel") {
  const char* text = R"(dissect: 1
kernel: phases
layout: {threads: 2}
arrays:
  a: {path: ca, size: 16 KiB, stride: 128 B}
  b: {path: tex, size: 8 KiB, stride: 32 B}
phases:
  - {thread: 0, array: a, action: warm}
  - {thread: 1, array: b, action: warm}
  - {thread: 0, array: a, action: measure}
)";
  const Spec s = load_spec_text(text, "t.yaml");
  REQUIRE(s.base.arrays.size() == 2);
  CHECK(s.base.arrays[1].path == LoadPath::tex);
  CHECK(s.base.arrays[1].array.size_bytes == 8192);
  REQUIRE(s.base.phases.size() == 3);
  CHECK(s.base.phases[2].action == Phase::Action::measure);
  CHECK(s.base.phases[1].thread == 1);

  std::string bad = text;
  bad.replace(bad.find("array: a, action: measure"), 8, "array: c");
  CHECK(errors_of(bad).find("phases: no array named 'c'") != std::string::npos);
  CHECK(errors_of("dissect: 1\nkernel: phases\n").find("kernel phases needs 'arrays:'") != std::string::npos);
}

TEST_CASE("analyzers and expectations are parsed") {
  const Spec s = load_spec_text(R"(dissect: 1
array: {size: 1 KiB}
analyzers: [summary, {cache_size: {min_share: 0.1}}]
expect: ["summary >= 10", "cache_size == 16 KiB"]
)",
                                "t.yaml");
  REQUIRE(s.base.analyzers.size() == 2);
  CHECK(s.base.analyzers[1].name == "cache_size");
  CHECK(s.base.analyzers[1].params_json == R"({"min_share":"0.1"})");
  REQUIRE(s.base.expectations.size() == 2);
  CHECK(s.base.expectations[1].finding == "cache_size");
  CHECK(s.base.expectations[1].op == "==");
  CHECK(s.base.expectations[1].value == "16 KiB");
  CHECK(errors_of("dissect: 1\narray: {size: 1 KiB}\nexpect: [\"summary is big\"]\n").find("has no comparison") !=
        std::string::npos);
}

TEST_CASE("duplicate keys are errors, not silent overrides") {
  CHECK(errors_of("dissect: 1\narray: {size: 1 KiB}\npath: ca\npath: cg\n")
            .find("t.yaml:4:1: duplicate key 'path'") != std::string::npos);
}

TEST_CASE("format version") {
  CHECK(errors_of("array: {size: 1 KiB}\n").find("t.yaml:1:1: missing format version") != std::string::npos);
  CHECK(errors_of("dissect: 7\narray: {size: 1 KiB}\n").find("t.yaml:1:10: unsupported spec format version '7'") !=
        std::string::npos);
}

TEST_CASE("all errors of a file are reported at once, in line order") {
  const std::string e = errors_of("dissect: 1\npth: ca\narray: {size: 1 KiB}\niterations: 0\nwarmup: x\n");
  const auto a = e.find(":2:"), b = e.find(":4:"), c = e.find(":5:");
  REQUIRE(a != std::string::npos);
  REQUIRE(b != std::string::npos);
  REQUIRE(c != std::string::npos);
  CHECK(a < b);
  CHECK(b < c);
}

TEST_CASE("abstract base files skip the completeness checks") {
  const Spec s = load_spec_text("dissect: 1\nabstract: true\npath: cg\niterations: 64\n", "base.yaml");
  CHECK(s.base.abstract);
  CHECK(s.base.iterations == 64);
}

TEST_CASE("accesses_per_pass follows the pattern") {
  Experiment e;
  e.array.size_bytes = 3073 * 4;
  e.array.stride_bytes = 4;
  CHECK(e.accesses_per_pass() == 3073);
  e.array.size_bytes = 3080 * 4;
  e.array.stride_bytes = 32;
  CHECK(e.accesses_per_pass() == 385);
  e.array.size_bytes = 100 * 4;
  e.array.stride_bytes = 3 * 4;  // wraps through every element: gcd(100,3) = 1
  CHECK(e.accesses_per_pass() == 100);
  e.array.pattern = Pattern::random;
  CHECK(e.accesses_per_pass() == 33);
  e.array.pattern = Pattern::page_strided;
  e.array.size_bytes = 64ull << 20;
  e.array.page_bytes = 2ull << 20;
  CHECK(e.accesses_per_pass() == 32);
}

TEST_CASE("array.frames: contiguous by default, scattered for a pointer chase on a global path only") {
  CHECK(load_spec_text(kValid, "t.yaml").base.array.frames == Frames::contiguous);
  const Spec s = load_spec_text("dissect: 1\npath: cg\narray: {size: 64 MiB, stride: 2 MiB, frames: scattered}\n", "t.yaml");
  CHECK(s.base.array.frames == Frames::scattered);
  CHECK(errors_of("dissect: 1\narray: {size: 64 MiB, frames: spread}\n").find("t.yaml:2:") != std::string::npos);
  const std::string tex = errors_of("dissect: 1\npath: tex\narray: {size: 64 MiB, frames: scattered}\n");
  CHECK(tex.find("t.yaml:3:") != std::string::npos);
  CHECK(tex.find("array.frames scattered applies to a pointer chase on a global load path") != std::string::npos);
  CHECK(errors_of("dissect: 1\nkernel: throughput\npath: cg\narray: {size: 64 MiB, frames: scattered}\n")
            .find("kernel is throughput") != std::string::npos);
}

TEST_CASE("array.frames aliased: a pointer chase on a global path; its arrays take one block of the memory") {
  const Spec s =
      load_spec_text("dissect: 1\npath: cg\narray: {size: 512 GiB, stride: 256 MiB, frames: aliased}\n", "t.yaml");
  CHECK(s.base.array.frames == Frames::aliased);
  CHECK(physical_bytes(s.base.array.size_bytes, s.base.array.frames) == kAliasedBlockBytes);
  CHECK(physical_bytes(64ull << 20, Frames::aliased) == 64ull << 20);
  CHECK(physical_bytes(512ull << 30, Frames::contiguous) == 512ull << 30);
  const std::string tex = errors_of("dissect: 1\npath: tex\narray: {size: 64 MiB, frames: aliased}\n");
  CHECK(tex.find("array.frames aliased applies to a pointer chase on a global load path") != std::string::npos);
}

TEST_CASE("access: load by default; store on the throughput kernel through a path that has a store") {
  CHECK(load_spec_text(kValid, "t.yaml").base.access == Access::load);
  const Experiment st =
      load_spec_text("dissect: 1\nkernel: throughput\naccess: store\npath: cg\narray: {size: 1 MiB}\n", "t.yaml").base;
  CHECK(st.access == Access::store);
  CHECK(std::string(store_operator(st.path)) == "cg");
  // The default path (ca) stores with the default operator, write-back.
  CHECK(std::string(store_operator(
            load_spec_text("dissect: 1\nkernel: throughput\naccess: store\narray: {size: 1 MiB}\n", "t.yaml").base.path)) ==
        "wb");
  CHECK(std::string(store_operator(LoadPath::cv)) == "wt");
  CHECK(std::string(store_operator(LoadPath::shared)) == "shared");
  for (LoadPath p : {LoadPath::lu, LoadPath::ldg, LoadPath::tex, LoadPath::constant}) CHECK(store_operator(p) == nullptr);
}

TEST_CASE("access errors name the line and column and what is allowed") {
  // A kernel that cannot store: the error points at access's value.
  CHECK(errors_of("dissect: 1\nkernel: pchase\naccess: store\narray: {size: 1 KiB}\n")
            .find("t.yaml:3:9: access: store only applies to kernel throughput (kernel is pchase)") !=
        std::string::npos);
  // A read-only path: the error points at path's value and lists the paths with a store.
  const std::string ro = errors_of("dissect: 1\nkernel: throughput\naccess: store\npath: ldg\narray: {size: 1 KiB}\n");
  CHECK(ro.find("t.yaml:4:7: path ldg has no store") != std::string::npos);
  CHECK(ro.find("ca (st.global.wb), cg (st.global.cg), cs (st.global.cs), cv (st.global.wt) or shared") !=
        std::string::npos);
  CHECK(errors_of("dissect: 1\nkernel: throughput\naccess: store\npath: tex\narray: {size: 1 KiB}\n")
            .find("path tex has no store") != std::string::npos);
  // An unknown value: did you mean.
  CHECK(errors_of("dissect: 1\nkernel: throughput\naccess: stroe\narray: {size: 1 KiB}\n")
            .find("access: unknown value 'stroe'; did you mean 'store'?") != std::string::npos);
  // Loads stay valid on every path.
  CHECK(errors_of("dissect: 1\nkernel: throughput\naccess: load\npath: ldg\narray: {size: 1 KiB}\n").empty());
}

TEST_CASE("access can be swept and is a point parameter") {
  const Spec s = load_spec_text(
      "dissect: 1\nkernel: throughput\npath: cg\narray: {size: 1 MiB}\nsweep:\n  access: [load, store]\n", "t.yaml");
  const auto points = s.expand();
  REQUIRE(points.size() == 2);
  CHECK(points[0].experiment.access == Access::load);
  CHECK(points[1].experiment.access == Access::store);
  const auto params = point_params(points[1]);
  CHECK(std::find(params.begin(), params.end(), std::pair<std::string, std::string>{"access", "store"}) != params.end());
}
