// The fuzz corpus (fuzz/corpus/, run by scripts/fuzz.sh with libFuzzer) replayed
// in the ordinary suite, also without clang: every input ends in a result or the
// one expected error, quickly.
#include <doctest/doctest.h>

#include <algorithm>
#include <chrono>
#include <filesystem>

#include "engine/spec/spec.hpp"
#include "engine/trace/trace_import.hpp"
#include "support/temp_dir.hpp"

using namespace dissect;
namespace fs = std::filesystem;

namespace {
std::vector<fs::path> corpus(const std::string& target) {
  std::vector<fs::path> files;
  for (const auto& e : fs::directory_iterator(fs::path(DISSECT_SOURCE_DIR) / "fuzz" / "corpus" / target))
    if (e.is_regular_file()) files.push_back(e.path());
  std::sort(files.begin(), files.end());
  return files;
}
}  // namespace

TEST_CASE("the spec loader's fuzz corpus loads or fails with a SpecError, each input in bounded time") {
  const auto files = corpus("spec_loader");
  REQUIRE(files.size() >= 5);
  for (const auto& f : files) {
    CAPTURE(f.filename().string());
    const auto t0 = std::chrono::steady_clock::now();
    try {
      LoadOptions o;
      o.max_points = 2000;
      (void)load_spec_text(test::read_file(f.string()), f.filename().string(), o);
    } catch (const SpecError& e) {
      CHECK_FALSE(e.diagnostics().empty());
    }
    CHECK(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() < 5.0);
  }
}

TEST_CASE("the trace importer's fuzz corpus imports or fails with a SpecError") {
  const auto files = corpus("trace_import");
  REQUIRE(files.size() >= 3);
  for (const auto& f : files) {
    CAPTURE(f.filename().string());
    try {
      const TraceSet t = import_trace_csv_text(test::read_file(f.string()), f.filename().string());
      CHECK_FALSE(t.points.empty());
    } catch (const SpecError& e) {
      CHECK_FALSE(e.diagnostics().empty());
    }
  }
}
