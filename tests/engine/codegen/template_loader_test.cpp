// Kernel templates are read at run time, includes inlined once.
#include <doctest/doctest.h>

#include "engine/codegen/template_loader.hpp"
#include "engine/core/diagnostics.hpp"
#include "support/temp_dir.hpp"

using namespace dissect;

TEST_CASE("the pchase template loads with common.cuh inlined, once") {
  const TemplateLoader loader(DISSECT_SOURCE_DIR "/kernels_templates");
  const LoadedTemplate t = loader.load("pchase");
  CHECK(t.name == "pchase");
  REQUIRE(t.files.size() == 2);  // pchase.cuh, common.cuh
  CHECK(t.text.find("#include \"common.cuh\"") == std::string::npos);
  CHECK(t.text.find("dissect_timed_chase") != std::string::npos);
  CHECK(t.text.find("extern \"C\" __global__ void dissect_pchase") != std::string::npos);
}

TEST_CASE("includes are inlined once even when included twice") {
  test::TempDir dir;
  dir.write("a.cuh", "#include \"c.cuh\"\n#include \"b.cuh\"\nA\n");
  dir.write("b.cuh", "#include \"c.cuh\"\nB\n");
  dir.write("c.cuh", "C\n");
  const LoadedTemplate t = TemplateLoader(dir.path()).load("a");
  CHECK(t.files.size() == 3);
  CHECK(t.text.find("C\n") == t.text.rfind("C\n"));
  CHECK(t.text.find("C\n") < t.text.find("B\n"));
}

TEST_CASE("a missing template names the folder and DISSECT_TEMPLATES") {
  test::TempDir dir;
  try {
    (void)TemplateLoader(dir.path()).load("nope");
    FAIL("no exception");
  } catch (const RunError& e) {
    const std::string m = e.what();
    CHECK(m.find("nope.cuh") != std::string::npos);
    CHECK(m.find("DISSECT_TEMPLATES") != std::string::npos);
  }
}
