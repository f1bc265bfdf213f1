#include "engine/run/device_memory_check.hpp"

#include <doctest/doctest.h>

#include "engine/core/diagnostics.hpp"

using namespace dissect;

namespace {
// A device that knows its memory and runs nothing.
class SizedDevice final : public Device {
 public:
  explicit SizedDevice(std::uint64_t bytes) : bytes_(bytes) {}
  [[nodiscard]] nlohmann::json describe() const override { return {{"name", "sized"}}; }
  [[nodiscard]] std::string selector() const override { return "sized"; }
  [[nodiscard]] std::uint64_t memory_bytes() const override { return bytes_; }
  RunTimings run(const RunRequest&, RunSink&) override { return {}; }

 private:
  std::uint64_t bytes_;
};

std::string error_of(const Spec& spec, const Device& d) {
  try {
    check_points_fit_device(spec, spec.expanded, d);
    return "";
  } catch (const SpecError& e) {
    return e.diagnostics().str();
  }
}
}  // namespace

TEST_CASE("points whose arrays exceed the device's memory are refused at the value that sized them") {
  const Spec swept = load_spec_text("dissect: 1\narray: {size: 1 KiB}\nsweep:\n  array.size: [1 KiB, 1 MiB, 2 MiB]\n",
                                    "s.yaml");
  CHECK(error_of(swept, SizedDevice(1 << 21)) == "");
  CHECK(error_of(swept, SizedDevice(1 << 20)) ==
        "s.yaml:4:30: arrays of 2 MiB (sweep point 2) exceed the memory of the device sized (1 MiB)\n");
  CHECK(error_of(swept, SizedDevice(0)) == "");  // memory unknown: nothing to check
  const Spec fixed = load_spec_text("dissect: 1\narray:\n  size: 4 MiB\n", "f.yaml");
  CHECK(error_of(fixed, SizedDevice(1 << 20)).find("f.yaml:3:9: arrays of 4 MiB") == 0);
}

TEST_CASE("an aliased array takes its one block of the memory, however far its range reaches") {
  Experiment e;
  e.array.size_bytes = 1ull << 40;
  e.array.frames = Frames::aliased;
  CHECK(point_array_bytes(e) == kAliasedBlockBytes);
  e.array.frames = Frames::contiguous;
  CHECK(point_array_bytes(e) == 1ull << 40);
}

TEST_CASE("a point's array bytes count the phases kernel's arrays, without overflowing") {
  Experiment e;
  e.array.size_bytes = 100;
  PhaseArray a, b;
  a.array.size_bytes = 20;
  b.array.size_bytes = ~std::uint64_t{0};
  e.arrays = {a, b};
  CHECK(point_array_bytes(e) == ~std::uint64_t{0});
  e.arrays.pop_back();
  CHECK(point_array_bytes(e) == 120);
}
