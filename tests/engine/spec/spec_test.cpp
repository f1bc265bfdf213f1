// Spec files: includes, --set overrides, files on disk.
#include <doctest/doctest.h>

#include "engine/spec/spec.hpp"
#include "support/temp_dir.hpp"

using namespace dissect;
using dissect::test::TempDir;

namespace {
std::string errors_of_file(const std::string& path, const LoadOptions& o = {}) {
  try {
    (void)load_spec(path, o);
    return "";
  } catch (const SpecError& e) {
    return e.diagnostics().str();
  }
}
}  // namespace

TEST_CASE("include: the including file overrides its base key by key") {
  TempDir dir;
  dir.write("base/chase.yaml", "dissect: 1\nabstract: true\nname: base\npath: tex\niterations: 4096\n"
                               "array: {stride: 32 B}\ntiming: {clock: clock64}\n");
  const std::string spec =
      dir.write("stage.yaml", "dissect: 1\ninclude: base/chase.yaml\narray: {size: 12 KiB}\niterations: 100\n");
  const Spec s = load_spec(spec);
  CHECK(s.base.path == LoadPath::tex);                // from the base
  CHECK(s.base.array.stride_bytes == 32);             // base, merged inside array:
  CHECK(s.base.array.size_bytes == 12288);            // from the file
  CHECK(s.base.iterations == 100);                    // overridden
  CHECK(s.base.timing.clock == ClockSource::clock64);
  CHECK_FALSE(s.base.abstract);                       // not inherited
  CHECK(s.base.name == "stage");                      // the base's name is not inherited
  REQUIRE(s.included.size() == 1);
}

TEST_CASE("include errors point into the right file") {
  TempDir dir;
  dir.write("base.yaml", "dissect: 1\nabstract: true\npth: tex\n");
  const std::string spec = dir.write("s.yaml", "dissect: 1\ninclude: base.yaml\narray: {size: 1 KiB}\n");
  const std::string e = errors_of_file(spec);
  CHECK(e.find("base.yaml:3:1: unknown key 'pth'") != std::string::npos);

  const std::string missing = dir.write("m.yaml", "dissect: 1\ninclude: nowhere.yaml\narray: {size: 1 KiB}\n");
  CHECK(errors_of_file(missing).find("m.yaml:2:10: include: file 'nowhere.yaml' not found") != std::string::npos);

  dir.write("a.yaml", "dissect: 1\ninclude: b.yaml\n");
  const std::string b = dir.write("b.yaml", "dissect: 1\ninclude: a.yaml\n");
  CHECK(errors_of_file(b).find("includes itself") != std::string::npos);
}

TEST_CASE("--set overrides fields, including sweeps, and errors name the option") {
  TempDir dir;
  const std::string spec = dir.write("s.yaml", "dissect: 1\narray: {size: 1 KiB}\n");
  LoadOptions o;
  o.overrides = {{"array.size", "16 KiB"}, {"path", "cg"}, {"sweep.iterations", "[1, 2, 3]"},
                 {"sweep.array.stride", "[4 B, 8 B]"}};
  const Spec s = load_spec(spec, o);
  CHECK(s.base.array.size_bytes == 16384);
  CHECK(s.base.path == LoadPath::cg);
  CHECK(s.point_count() == 6);  // the sweep axis "array.stride" is one key, not array: {stride: }

  LoadOptions bad;
  bad.overrides = {{"array.sise", "16 KiB"}};
  CHECK(errors_of_file(spec, bad).find("--set array.sise=16 KiB:1:7: unknown key 'array.sise'; did you mean "
                                       "'array.size'?") != std::string::npos);
  LoadOptions badval;
  badval.overrides = {{"array.size", "16 KiBB"}};
  CHECK(errors_of_file(spec, badval).find("--set array.size=16 KiBB:1:18: array.size: unknown unit") !=
        std::string::npos);
}

TEST_CASE("missing and unreadable files") {
  CHECK(errors_of_file("/nonexistent/x.yaml").find("/nonexistent/x.yaml: no such file") != std::string::npos);
}

TEST_CASE("an empty file is an error, not a crash") {
  TempDir dir;
  CHECK(errors_of_file(dir.write("e.yaml", "")).find("missing format version") != std::string::npos);
  CHECK(errors_of_file(dir.write("l.yaml", "- a\n- b\n")).find("a spec must be a mapping") != std::string::npos);
}

TEST_CASE("make_point decodes explicit axis values (used by adaptive search)") {
  const Spec s = load_spec_text("dissect: 1\narray: {size: 1 KiB}\n", "t.yaml");
  const Point p = s.make_point(7, {{"array.size", SpecNode::make_scalar("48 KiB", {"search", 1, 1})}});
  CHECK(p.id == 7);
  CHECK(p.experiment.array.size_bytes == 48 * 1024);
  CHECK_THROWS_AS((void)s.make_point(8, {{"array.size", SpecNode::make_scalar("2 B", {"search", 1, 1})}}), SpecError);
}

TEST_CASE("load_spec keeps the points it decoded to validate the spec; runs use them") {
  const Spec s = load_spec_text("dissect: 1\narray: {size: 1 KiB, stride: 4 B}\n"
                                "sweep:\n  skip_invalid: true\n  array.size: [2 B, 1 KiB, 2 KiB]\n  warmup: [0, 1]\n",
                                "kept.yaml");
  const std::vector<Point> fresh = s.expand();
  REQUIRE(s.expanded.size() == fresh.size());
  CHECK(s.expanded.size() == s.point_count());  // the invalid 2 B points are left out of both
  for (std::size_t i = 0; i < fresh.size(); ++i) {
    CHECK(s.expanded[i].id == fresh[i].id);
    CHECK(s.expanded[i].axis_values == fresh[i].axis_values);
    CHECK(s.expanded[i].experiment.array.size_bytes == fresh[i].experiment.array.size_bytes);
    CHECK(s.expanded[i].experiment.warmup == fresh[i].experiment.warmup);
  }
  // Adaptive and abstract specs have nothing to keep: their points are chosen while running.
  CHECK(load_spec_text("dissect: 1\narray: {size: 1 KiB}\nsweep:\n  array.size: {search: knee, from: 1 KiB, "
                       "to: 64 KiB}\n",
                       "a.yaml")
            .expanded.empty());
  CHECK(load_spec_text("dissect: 1\nabstract: true\n", "b.yaml").expanded.empty());
}
