// Forward-only layering: the modules of the engine, in the order of the data flow
// (docs/ARCHITECTURE.md, "Layering"). A file may include its own module and the
// modules before it, never one after it. This test reads every `#include "..."` of
// engine/ and analyzers/ and fails on any include against the order.
//
// A module is a directory right under engine/ (its subdirectories belong to it:
// engine/device/cuda is module `device`), or analyzers/ (with analyzers/stats).
// tests/ and bench/ are exempt: they sit on top of everything. Quoted includes
// outside the tree (the generated dissect_git_revision.hpp) are not modules.
#include <doctest/doctest.h>

#include <algorithm>
#include <array>
#include <filesystem>
#include <fstream>
#include <optional>
#include <regex>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "support/temp_dir.hpp"

namespace {
namespace fs = std::filesystem;

// THE order: the only place it is written down (docs/ARCHITECTURE.md shows it; the
// last test case checks that the two agree).
constexpr std::array<std::string_view, 12> kModuleOrder = {
    "core",        // diagnostics, files, CSV, paths, timeline
    "spec",        // spec language -> Experiment, sweeps -> Points, point_params
    "trace",       // Sample, PointTrace, TraceSet; trace CSV import
    "codegen",     // kernel templates -> source -> NVRTC -> CUBIN, compile cache
    "device",      // Device, factories; cuda/, sim/
    "bundle",      // bundle writer and reader
    "findings",    // Finding: what analyzers conclude, what everything after reads
    "analyzers",   // TraceSet -> Findings; analyzers/stats
    "run",         // runner, adaptive search, analysis + expectations
    "report",      // report.md, plots
    "topology",    // the chained experiments of `dissect topology`
    "cli",         // one file per verb
};

std::string order_text() {
  std::string s;
  for (const auto m : kModuleOrder) s += (s.empty() ? "" : " < ") + std::string(m);
  return s;
}

std::optional<std::size_t> rank_of(std::string_view module) {
  const auto it = std::find(kModuleOrder.begin(), kModuleOrder.end(), module);
  if (it == kModuleOrder.end()) return std::nullopt;
  return static_cast<std::size_t>(it - kModuleOrder.begin());
}

// The module of a path relative to the source root ("engine/device/sim/x.cpp" ->
// "device", "analyzers/stats/knee.hpp" -> "analyzers"); nullopt outside engine/ and
// analyzers/. A file right in engine/ is module "" (in no module: reported).
std::optional<std::string> module_of(const std::string& rel) {
  const fs::path p(rel);
  auto it = p.begin();
  if (it == p.end()) return std::nullopt;
  const std::string top = it->string();
  if (top == "analyzers") return std::string("analyzers");
  if (top != "engine") return std::nullopt;
  ++it;
  if (it == p.end() || std::next(it) == p.end()) return std::string();
  return it->string();
}

bool is_source(const fs::path& p) {
  static const std::array<std::string_view, 6> kExt = {".hpp", ".cpp", ".h", ".cc", ".inl", ".cuh"};
  const std::string e = p.extension().string();
  return std::find(kExt.begin(), kExt.end(), e) != kExt.end();
}

struct Include {
  std::string file;  // relative to the source root
  int line = 0;
  std::string target;  // as written
};

// Every `#include "..."` of the sources under root/engine and root/analyzers (a
// directive at the start of a line: not the ones quoted in comments).
std::vector<Include> quoted_includes(const fs::path& root) {
  static const std::regex kDirective(R"(^\s*#\s*include\s*"([^"]+)\")");
  std::vector<Include> out;
  for (const char* top : {"engine", "analyzers"}) {
    if (!fs::is_directory(root / top)) continue;
    std::vector<fs::path> files;
    for (const auto& e : fs::recursive_directory_iterator(root / top))
      if (e.is_regular_file() && is_source(e.path())) files.push_back(e.path());
    std::sort(files.begin(), files.end());
    for (const auto& f : files) {
      std::ifstream in(f);
      std::string text;
      int n = 0;
      while (std::getline(in, text)) {
        ++n;
        std::smatch m;
        if (std::regex_search(text, m, kDirective))
          out.push_back({fs::relative(f, root).generic_string(), n, m[1].str()});
      }
    }
  }
  return out;
}

// What a quoted include names, relative to the root: root-relative as written
// ("engine/spec/spec.hpp"), else relative to the including file if such a file
// exists, else nothing of the tree (a generated header).
std::optional<std::string> resolve(const fs::path& root, const Include& inc) {
  if (inc.target.rfind("engine/", 0) == 0 || inc.target.rfind("analyzers/", 0) == 0) return inc.target;
  const fs::path beside = fs::path(inc.file).parent_path() / inc.target;
  if (fs::exists(root / beside)) return beside.lexically_normal().generic_string();
  return std::nullopt;
}

std::string ordinal(std::size_t rank) { return "#" + std::to_string(rank + 1); }

// One message per include against the order (or from or into a file in no module
// of the order).
std::vector<std::string> layering_violations(const fs::path& root) {
  std::vector<std::string> out;
  for (const Include& inc : quoted_includes(root)) {
    const std::string where = inc.file + ":" + std::to_string(inc.line) + ": #include \"" + inc.target + "\": ";
    const std::optional<std::string> from = module_of(inc.file);
    const std::optional<std::string> target = resolve(root, inc);
    if (!from || !target) continue;
    const std::optional<std::string> to = module_of(*target);
    if (!to) continue;
    const auto from_rank = rank_of(*from), to_rank = rank_of(*to);
    if (!from_rank || !to_rank) {
      const std::string& unknown = !from_rank ? *from : *to;
      out.push_back(where + "module '" + unknown + "' is not in the layering order (" + order_text() +
                    "); place it in kModuleOrder (tests/layering_test.cpp) and docs/ARCHITECTURE.md");
      continue;
    }
    if (*to_rank > *from_rank)
      out.push_back(where + "module '" + *from + "' (" + ordinal(*from_rank) + ") includes module '" + *to + "' (" +
                    ordinal(*to_rank) + "), which comes after it; includes go only backward in the order " +
                    order_text());
  }
  return out;
}

std::string joined(const std::vector<std::string>& lines) {
  std::string s;
  for (const auto& l : lines) s += l + "\n";
  return s;
}

}  // namespace

TEST_CASE("layering: every include of engine/ and analyzers/ goes backward in the module order") {
  const fs::path root(DISSECT_SOURCE_DIR);
  REQUIRE(fs::is_directory(root / "engine"));
  // The scan sees the tree: the includes are there to be checked.
  CHECK(quoted_includes(root).size() > 100);
  const auto v = layering_violations(root);
  INFO(joined(v));
  CHECK(v.empty());
}

TEST_CASE("layering: an include against the order is reported with file, line, modules and order") {
  dissect::test::TempDir dir;
  // The cycle the layering ended: a bundle includes the device interface (forward),
  // and the simulated device includes the bundle (against the order).
  dir.write("engine/device/device.hpp", "#pragma once\n#include \"engine/spec/spec.hpp\"\n");
  dir.write("engine/spec/spec.hpp", "#pragma once\n");
  dir.write("engine/bundle/bundle.hpp", "#pragma once\n#include \"engine/device/device.hpp\"\n");
  dir.write("engine/device/sim/sim_kernels.cpp",
            "// `#include \"engine/report/plot.hpp\"` in a comment is no include\n"
            "#include <vector>\n"
            "#include \"engine/device/device.hpp\"\n"
            "#include \"engine/bundle/bundle.hpp\"\n"
            "#include \"dissect_git_revision.hpp\"\n");
  // analyzers/stats is module analyzers: run may include it, findings may not.
  dir.write("analyzers/stats/knee.hpp", "#pragma once\n#include \"engine/findings/finding.hpp\"\n");
  dir.write("engine/findings/finding.hpp", "#pragma once\n#include \"analyzers/stats/knee.hpp\"\n");
  dir.write("engine/run/adaptive_search.cpp", "#include \"analyzers/stats/knee.hpp\"\n");
  // A directory that is no module of the order.
  dir.write("engine/gadgets/gadget.cpp", "#include \"engine/core/files.hpp\"\n");
  const auto v = layering_violations(dir.path());
  INFO(joined(v));
  REQUIRE(v.size() == 3);
  CHECK(v[0] ==
        "engine/device/sim/sim_kernels.cpp:4: #include \"engine/bundle/bundle.hpp\": module 'device' (#5) includes "
        "module 'bundle' (#6), which comes after it; includes go only backward in the order " +
            order_text());
  CHECK(v[1].rfind("engine/findings/finding.hpp:2: #include \"analyzers/stats/knee.hpp\": module 'findings' (#7) "
                   "includes module 'analyzers' (#8)",
                   0) == 0);
  CHECK(v[2].rfind("engine/gadgets/gadget.cpp:1: #include \"engine/core/files.hpp\": module 'gadgets' is not in the "
                   "layering order",
                   0) == 0);
}

TEST_CASE("layering: docs/ARCHITECTURE.md shows the order the test checks") {
  std::ifstream in(fs::path(DISSECT_SOURCE_DIR) / "docs" / "ARCHITECTURE.md");
  REQUIRE(in);
  // Rows of the Layering table: | 1 | `core` | ... |
  static const std::regex kRow(R"(^\|\s*(\d+)\s*\|\s*`([a-z_]+)`)");
  std::vector<std::string> documented;
  std::string line;
  while (std::getline(in, line)) {
    std::smatch m;
    if (std::regex_search(line, m, kRow)) {
      CHECK(std::stoul(m[1].str()) == documented.size() + 1);
      documented.push_back(m[2].str());
    }
  }
  const std::vector<std::string> expected(kModuleOrder.begin(), kModuleOrder.end());
  CHECK(documented == expected);
}
