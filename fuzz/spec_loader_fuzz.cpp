// libFuzzer target: the spec loader (YAML -> SpecNode -> includes, decoding,
// sweep expansion). Its contract: any input ends in a Spec or a SpecError (a
// file:line:col diagnostic), within bounded time and memory; anything else (a
// crash, another exception, a sanitizer report, a timeout, memory past the
// limit) is a finding. Run by scripts/fuzz.sh.
#include <cstddef>
#include <cstdint>
#include <string>

#include "engine/spec/spec.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  try {
    dissect::LoadOptions options;
    options.max_points = 2000;  // each point is decoded: keep one input fast
    (void)dissect::load_spec_text(text, "fuzz.yaml", options);
  } catch (const dissect::SpecError&) {
    // the expected answer to a bad spec
  }
  return 0;
}
