// Spec files: includes, --set overrides, files on disk.
#include <doctest/doctest.h>

#include <chrono>

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
  // A name the file system refuses (a component over NAME_MAX) is not found too, not an exception.
  const std::string long_name = dir.write("l.yaml", "dissect: 1\ninclude: " + std::string(300, 'x') + ".yaml\n");
  CHECK(errors_of_file(long_name).find("l.yaml:2:10: include: file '") != std::string::npos);

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

  // A long value (a topology's sweep) is abbreviated where its errors are located.
  std::string values = "[";
  for (int i = 1; i <= 300; ++i) values += std::to_string(i) + " KiB, ";
  values += "7 KiBB]";
  LoadOptions long_value;
  long_value.overrides = {{"sweep.array.size", values}};
  const std::string errors = errors_of_file(spec, long_value);
  CHECK(errors.find("--set sweep.array.size=" + values.substr(0, 48) + "...:1:24: ") != std::string::npos);
  CHECK(errors.find("unknown unit") != std::string::npos);
  CHECK(errors.size() < 400);
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

// Hostile inputs (issue 19): each is refused before the work it would cost, at a file:line:col.

TEST_CASE("a spec name is one directory name: '..', '.', paths, control characters and huge names are refused") {
  const auto errors = [](const std::string& name_line) {
    try {
      (void)load_spec_text("dissect: 1\n" + name_line + "\narray: {size: 1 KiB}\n", "s.yaml");
      return std::string();
    } catch (const SpecError& e) {
      return e.diagnostics().str();
    }
  };
  CHECK(errors("name: \"..\"").find("s.yaml:2:7: name: '..' is not a name") != std::string::npos);
  CHECK(errors("name: \".\"").find("s.yaml:2:7: name: '.' is not a name") != std::string::npos);
  CHECK(errors("name: ../../etc").find("a name is one directory name, not a path") != std::string::npos);
  CHECK(errors("name: \"a\\tb\"").find("control character") != std::string::npos);
  CHECK(errors("name: " + std::string(10 << 20, 'n')).find("at most 128 are allowed") != std::string::npos);
  CHECK(errors("name: l1-size_2 (\xc3\xa9t\xc3\xa9)") == "");
}

TEST_CASE("a spec without a name whose file name cannot be one is refused") {
  TempDir dir;
  const std::string p = dir.write("..yaml", "dissect: 1\narray: {size: 1 KiB}\n");  // stem "."
  CHECK(errors_of_file(p).find("..yaml:1:1: the spec has no 'name:' and its file name cannot stand in") !=
        std::string::npos);
}

TEST_CASE("spec files that are not UTF-8 text are refused where the first bad byte is") {
  TempDir dir;
  CHECK(errors_of_file(dir.write("u16.yaml", std::string("\xff\xfe" "d\0i\0", 6))).find("u16.yaml:1:1: the file is UTF-16LE") !=
        std::string::npos);
  CHECK(errors_of_file(dir.write("nul.yaml", std::string("dissect: 1\nname: a\0b\n", 21))).find("nul.yaml:2:8: NUL byte") !=
        std::string::npos);
  CHECK(errors_of_file(dir.write("bad.yaml", "dissect: 1\nname: caf\xe9\n")).find("bad.yaml:2:10: invalid UTF-8") !=
        std::string::npos);
}

TEST_CASE("spec and include sizes are bounded before reading: a huge file, /dev/zero") {
  TempDir dir;
  const std::string big = dir.write("big.yaml", "dissect: 1\n#" + std::string(kMaxSpecFileBytes, 'x') + "\n");
  CHECK(errors_of_file(big).find("big.yaml:1:1: file larger than 1024 KiB") != std::string::npos);
  const std::string zero = dir.write("zero.yaml", "dissect: 1\ninclude: /dev/zero\narray: {size: 1 KiB}\n");
  CHECK(errors_of_file(zero).find("zero.yaml:2:10: include: /dev/zero:1:1: file larger than") != std::string::npos);
}

TEST_CASE("values nested deeper than the limit are refused with a location, not a stack overflow") {
  // 200 nested sequences; the fuzzer's reproducer (fuzz/corpus/spec_loader/
  // regression-alias-nesting-stack-overflow.yaml) reached the same depth through aliases.
  const std::string deep = "dissect: 1\na: " + std::string(200, '[') + "1" + std::string(200, ']') + "\n";
  std::string err;
  try {
    (void)load_spec_text(deep, "deep.yaml");
  } catch (const SpecError& e) {
    err = e.diagnostics().str();
  }
  CHECK(err.find("deep.yaml:2:") == 0);
  CHECK(err.find("nest more than 64 levels deep") != std::string::npos);
}

TEST_CASE("a YAML alias bomb is refused after a bounded number of values") {
  // 399 bytes that name 10^9 values once aliases are expanded.
  std::string bomb = "dissect: 1\na: &a [x, x, x, x, x, x, x, x, x, x]\n";
  for (char c = 'b'; c <= 'i'; ++c)
    bomb += std::string(1, c) + ": &" + c + " [*" + char(c - 1) + ", *" + char(c - 1) + ", *" + char(c - 1) + ", *" +
            char(c - 1) + ", *" + char(c - 1) + ", *" + char(c - 1) + ", *" + char(c - 1) + ", *" + char(c - 1) +
            ", *" + char(c - 1) + ", *" + char(c - 1) + "]\n";
  std::string err;
  try {
    (void)load_spec_text(bomb, "bomb.yaml");
  } catch (const SpecError& e) {
    err = e.diagnostics().str();
  }
  CHECK(err.find("bomb.yaml:") == 0);
  CHECK(err.find("holds more than 1000000 values (with YAML aliases expanded)") != std::string::npos);
}

TEST_CASE("validation is linear in failing sweep points: 15,000 points that each fail differently") {
  // Each point's error names its own value: 15,000 distinct failures, grouped by hash, not by scanning.
  std::string values;
  for (int i = 0; i < 15000; ++i) values += (values.empty() ? "" : ", ") + std::to_string(100000 + i) + " B";
  const std::string text = "dissect: 1\npath: const\narray: {size: 1 KiB, stride: 4 B}\nmax_points: 20000\n"
                           "sweep:\n  array.size: [" + values + "]\n";
  const auto t0 = std::chrono::steady_clock::now();
  std::string err;
  try {
    (void)load_spec_text(text, "many.yaml");
  } catch (const SpecError& e) {
    err = e.diagnostics().str();
  }
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  CHECK(err.find("many.yaml:6:") != std::string::npos);
  CHECK(err.find("more distinct errors not shown") != std::string::npos);
  CHECK(s < 10.0);  // 27 s when each failure was compared with every earlier one
}
