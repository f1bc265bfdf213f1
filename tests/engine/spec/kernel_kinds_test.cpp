// The table of kernel kinds: one row per KernelKind, in order, and each row's rules are
// what the decoder enforces.
#include <doctest/doctest.h>

#include <set>

#include "engine/core/diagnostics.hpp"
#include "engine/spec/kernel_kinds.hpp"
#include "engine/spec/spec.hpp"

using namespace dissect;

namespace {
Experiment load(const std::string& body) { return load_spec_text("dissect: 1\nname: t\n" + body, "t.yaml").base; }
}  // namespace

TEST_CASE("every kernel kind has one row, in the order of KernelKind, with a unique name") {
  std::set<std::string_view> names;
  std::size_t i = 0;
  for (const auto& k : kernel_kinds()) {
    CHECK(static_cast<std::size_t>(k.kind) == i++);
    CHECK(names.insert(k.name).second);
    CHECK(std::string(to_string(k.kind)) == k.name);
    CHECK_FALSE(k.sample.empty());
    CHECK(static_cast<bool>(k.samples_per_point));
  }
  CHECK(kernel_kind_info(KernelKind::phases).named_arrays);
}

TEST_CASE("samples per point follow each kind's definition of a sample") {
  CHECK(load("kernel: pchase\narray: {size: 4 KiB, stride: 64 B}\niterations: 100\nrepeats: 3\n").samples_per_point() ==
        300);
  CHECK(load("kernel: pchase\ntiming: {mode: chain}\narray: {size: 4 KiB, stride: 64 B}\nlayout: {threads: 4, "
             "chasers: all}\nrepeats: 2\n")
            .samples_per_point() == 8);
  CHECK(load("kernel: shared_stride\narray: {size: 4 KiB, stride: 4 B}\nlayout: {threads: 32}\nrepeats: 2\n")
            .samples_per_point() == 64);
  CHECK(load("kernel: throughput\npath: cg\narray: {size: 1 MiB}\nlayout: {blocks: 2, threads: 100}\n")
            .samples_per_point() == 8);  // 4 warps (the last one partial) x 2 blocks
  CHECK(load("kernel: coalescing\narray: {size: 64 KiB, stride: 4 B}\nlayout: {threads: 32}\niterations: 5\n")
            .samples_per_point() == 5);
  // phases: the measure phases' passes over their arrays (8 KiB / 128 B = 64 accesses a pass).
  CHECK(load("kernel: phases\ntarget: l1\nlayout: {threads: 2, chasers: all}\narrays:\n  a: {path: ca, size: 8 KiB, "
             "stride: 128 B}\nphases:\n  - {thread: 0, array: a, action: warm}\n  - {thread: 1, array: a, action: "
             "measure, passes: 2}\n")
            .samples_per_point() == 128);
}

TEST_CASE("a kind's only path is its default and the only one accepted") {
  CHECK(load("kernel: shared_stride\narray: {size: 4 KiB, stride: 4 B}\nlayout: {threads: 32}\n").path ==
        LoadPath::shared);
  CHECK_THROWS_WITH_AS(load("kernel: shared_stride\npath: ca\narray: {size: 4 KiB, stride: 4 B}\nlayout: {threads: 32}\n"),
                       doctest::Contains("path must be shared"), SpecError);
  CHECK(kernel_kind_names(&KernelKindInfo::chain_timing) == "pchase");
  CHECK(kernel_kind_names(&KernelKindInfo::warp_access) == "shared_stride or coalescing");
  CHECK(kernel_kind_names(&KernelKindInfo::stores) == "throughput");
}
