// Instantiation: defines in front of the template, nothing left to include.
#include <doctest/doctest.h>

#include "codegen_test_support.hpp"
#include "engine/codegen/codegen.hpp"

using namespace dissect;

TEST_CASE("generated source starts with the parameters and is self-contained") {
  const TemplateLoader loader(DISSECT_SOURCE_DIR "/kernels_templates");
  const GeneratedKernel g = instantiate(kernel_params(test::pchase_experiment("tex", "u64")), loader);
  CHECK(g.entry() == "dissect_pchase");
  CHECK(g.name() == "pchase-tex-u64-per_access-clock");
  const auto def = g.source.find("#define DISSECT_PATH 6");
  REQUIRE(def != std::string::npos);
  CHECK(def < g.source.find("typedef unsigned int dissect_u32"));
  CHECK(g.source.find("\n#include") == std::string::npos);
  CHECK(g.template_files.size() == 2);
}
