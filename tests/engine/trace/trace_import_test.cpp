#include <doctest/doctest.h>

#include "engine/core/diagnostics.hpp"
#include "engine/trace/trace_import.hpp"

using namespace dissect;

namespace {
std::string error_of(const std::string& text) {
  try {
    (void)import_trace_csv_text(text, "t.csv");
    return "";
  } catch (const SpecError& e) {
    return e.diagnostics().str();
  }
}
}  // namespace

TEST_CASE("rows sharing size and stride form one point, in order of appearance") {
  const TraceSet t = import_trace_csv_text(
      "tool,size_bytes,stride_bytes,seq,offset_bytes,latency,note\n"
      "x,12292,4,0,0,250,a\n"
      "x,12292,4,1,4,488.5,b\n"
      "x,12320,32,0,0,246,c\n"
      "x,12292,4,2,8,250,d\n",
      "t.csv");
  REQUIRE(t.points.size() == 2);
  CHECK(t.points[0].size_bytes() == 12292);
  CHECK(t.points[0].stride_bytes() == 4);
  REQUIRE(t.points[0].samples.size() == 3);
  CHECK(t.points[0].samples[1].latency == doctest::Approx(488.5));
  CHECK(t.points[0].samples[2].offset_bytes == 8);
  CHECK(t.points[1].stride_bytes() == 32);
  CHECK(t.points[1].samples.size() == 1);
}

TEST_CASE("import errors name file and line") {
  CHECK(error_of("") == "t.csv:1: empty file: expected a CSV header\n");
  CHECK(error_of("size_bytes,stride_bytes,seq,offset_bytes\n1,1,1,1\n").find("t.csv:1: missing column 'latency'") !=
        std::string::npos);
  CHECK(error_of("size_bytes,stride_bytes,seq,offset_bytes,latency\n4,4,0,0,12\n4,4,1,4,abc\n") ==
        "t.csv:3: column 'latency': 'abc' is not a number\n");
  CHECK(error_of("size_bytes,stride_bytes,seq,offset_bytes,latency\n4,4,0,0\n").find("t.csv:2: row has 4 cells") !=
        std::string::npos);
  CHECK(error_of("size_bytes,stride_bytes,seq,offset_bytes,latency\n").find("no data rows") != std::string::npos);
  CHECK(error_of("size_bytes,stride_bytes,seq,offset_bytes,latency\n4.5,4,0,0,1\n").find("not a whole number") !=
        std::string::npos);
  CHECK(error_of("size_bytes,stride_bytes,seq,offset_bytes,latency\n4,4,0,0,-3\n").find("is negative") !=
        std::string::npos);
}

TEST_CASE("blank lines and CRLF are tolerated") {
  const TraceSet t =
      import_trace_csv_text("\r\nsize_bytes,stride_bytes,seq,offset_bytes,latency\r\n\r\n8,4,0,0,10\r\n", "t.csv");
  REQUIRE(t.points.size() == 1);
  CHECK(t.points[0].samples[0].latency == 10);
}

TEST_CASE("numbers of 2^64 or more are an error, not a silent 0") {
  const std::string head = "size_bytes,stride_bytes,seq,offset_bytes,latency\n";
  CHECK(error_of(head + "4096,4,0,18446744073709551616,250\n") ==
        "t.csv:2: column 'offset_bytes': 18446744073709551616 is out of range (2^64 or more)\n");
  CHECK(error_of(head + "1e30,4,0,0,250\n").find("t.csv:2: column 'size_bytes': 1e30 is out of range") == 0);
  CHECK(error_of(head + "4096,4,0,18446744073709549568,250\n").empty());  // the largest double below 2^64
}

TEST_CASE("an unclosed quote, even on the last line, is an error") {
  CHECK(error_of("size_bytes,stride_bytes,seq,offset_bytes,latency\n4096,4,0,0,250\n4096,4,1,4,\"250") ==
        "t.csv:3: a quoted cell is not closed\n");
}

TEST_CASE("the number of points is bounded row by row: a million one-row points stop at the limit") {
  std::string text = "size_bytes,stride_bytes,seq,offset_bytes,latency\n";
  text.reserve(text.size() + (kMaxImportedPoints + 10) * 24);
  for (std::size_t i = 0; i <= kMaxImportedPoints; ++i) text += std::to_string(4096 + i) + ",4,0,0,250\n";
  const std::string err = error_of(text);
  CHECK(err.find("t.csv:" + std::to_string(kMaxImportedPoints + 2) + ": more than 100000 points") == 0);
}
