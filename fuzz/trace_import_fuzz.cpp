// libFuzzer target: the trace importer (dissect analyze --trace). Its contract:
// any input ends in a TraceSet or a SpecError (file:line), within bounded time
// and memory; anything else is a finding. Run by scripts/fuzz.sh.
#include <cstddef>
#include <cstdint>
#include <string>

#include "engine/core/diagnostics.hpp"
#include "engine/trace/trace_import.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  try {
    (void)dissect::import_trace_csv_text(text, "fuzz.csv");
  } catch (const dissect::SpecError&) {
    // the expected answer to a bad trace
  }
  return 0;
}
