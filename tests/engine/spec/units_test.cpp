#include <doctest/doctest.h>

#include "engine/spec/units.hpp"

using namespace dissect;

TEST_CASE("parse_quantity: binary units and aliases") {
  std::string err;
  CHECK(parse_quantity("16 KiB", "", err)->amount == 16384);
  CHECK(parse_quantity("16KiB", "", err)->amount == 16384);
  CHECK(parse_quantity("16 KB", "", err)->amount == 16384);
  CHECK(parse_quantity("2 MiB", "", err)->amount == 2u << 20);
  CHECK(parse_quantity("1 GiB", "", err)->amount == 1u << 30);
  CHECK(parse_quantity("128 B", "", err)->amount == 128);
  CHECK(parse_quantity("1.5 KiB", "", err)->amount == 1536);
  auto e = parse_quantity("3073 elements", "", err);
  REQUIRE(e);
  CHECK(e->unit == QuantityUnit::elements);
  CHECK(e->bytes(4) == 12292);
  CHECK(e->bytes(8) == 24584);
}

TEST_CASE("parse_quantity: errors say what is wrong") {
  std::string err;
  CHECK_FALSE(parse_quantity("16", "", err));
  CHECK(err.find("needs a unit") != std::string::npos);
  CHECK_FALSE(parse_quantity("16 KiBB", "", err));
  CHECK(err.find("unknown unit 'KiBB'") != std::string::npos);
  CHECK_FALSE(parse_quantity("-4 B", "", err));
  CHECK(err.find("negative") != std::string::npos);
  CHECK_FALSE(parse_quantity("1.3 B", "", err));
  CHECK(err.find("whole number") != std::string::npos);
  CHECK_FALSE(parse_quantity("KiB", "", err));
  CHECK_FALSE(parse_quantity("99999999999999999999 B", "", err));
  CHECK(err.find("too large") != std::string::npos);
}

TEST_CASE("parse_quantity: default unit applies to bare numbers only") {
  std::string err;
  CHECK(parse_quantity("8", "elements", err)->unit == QuantityUnit::elements);
  CHECK(parse_quantity("8 B", "elements", err)->unit == QuantityUnit::bytes);
}

TEST_CASE("parse_count") {
  std::string err;
  CHECK(*parse_count("4096", err) == 4096);
  CHECK(*parse_count("4 Ki", err) == 4096);
  CHECK_FALSE(parse_count("4.5", err));
  CHECK_FALSE(parse_count("abc", err));
  CHECK_FALSE(parse_count("-1", err));
}

TEST_CASE("format_bytes round-trips") {
  CHECK(format_bytes(16384) == "16 KiB");
  CHECK(format_bytes(12292) == "12292 B");
  CHECK(format_bytes(2u << 20) == "2 MiB");
  CHECK(format_bytes(0) == "0 B");
  std::string err;
  for (std::uint64_t v : {1ull, 100ull, 4096ull, 12292ull, 1ull << 30})
    CHECK(parse_quantity(format_bytes(v), "", err)->amount == v);
}
