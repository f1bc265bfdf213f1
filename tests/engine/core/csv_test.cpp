// CSV fields and numbers as dissect writes them (bundles, reports).
#include <doctest/doctest.h>

#include <charconv>
#include <cmath>
#include <limits>

#include "engine/core/csv.hpp"

using namespace dissect;

TEST_CASE("numbers: whole ones as integers, others in their shortest exact form") {
  CHECK(format_number(0) == "0");
  CHECK(format_number(-0.0) == "0");
  CHECK(format_number(1e6) == "1000000");  // the shortest form would be 1e+06
  CHECK(format_number(-42) == "-42");
  CHECK(format_number(999999999999999) == "999999999999999");
  CHECK(format_number(1e15) == "1e+15");  // from 1e15 on: the shortest form
  CHECK(format_number(0.1) == "0.1");
  CHECK(format_number(33.5) == "33.5");
  CHECK(format_number(std::numeric_limits<double>::quiet_NaN()) == "nan");
  CHECK(format_number(std::numeric_limits<double>::infinity()) == "inf");
  CHECK(format_number(-std::numeric_limits<double>::denorm_min()) == "-5e-324");
}

TEST_CASE("write_number writes what format_number returns, and it reads back exactly") {
  const double values[] = {0, 1, -1, 0.5, 1.0 / 3, 2.0 / 3 * 1e-300, 123456.789, 1e14 + 0.5, 4503599627370497.0,
                           -1.7976931348623157e308, 2.2250738585072014e-308, 0.00011444091796875};
  for (const double v : values) {
    CAPTURE(v);
    char buf[kNumberChars];
    const std::string text(buf, write_number(buf, v));
    CHECK(text == format_number(v));
    CHECK(text.size() <= 24);
    double back = 0;
    std::from_chars(text.data(), text.data() + text.size(), back);
    CHECK(back == v);
  }
}

TEST_CASE("fields are quoted only when they must be, and rows append in place") {
  CHECK(csv_field("plain text; a=b") == "plain text; a=b");
  CHECK(csv_field("a,b") == "\"a,b\"");
  CHECK(csv_field("say \"hi\"") == "\"say \"\"hi\"\"\"");
  CHECK(csv_field("two\nlines") == "\"two\nlines\"");
  CHECK(csv_field("cr\r") == "\"cr\r\"");
  CHECK(csv_field("") == "");
  std::string out = "head\n";
  append_csv_row(out, {"1", "x,y", ""});
  append_csv_field(out, "q\"");
  CHECK(out == "head\n1,\"x,y\",\n\"q\"\"\"");
  CHECK(csv_row({"1", "x,y", ""}) == "1,\"x,y\",\n");
  CHECK(split_csv_line("1,\"x,y\",") == std::vector<std::string>{"1", "x,y", ""});
}
