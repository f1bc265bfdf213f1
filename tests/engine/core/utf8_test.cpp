#include "engine/core/utf8.hpp"

#include <doctest/doctest.h>

#include <string>

using namespace dissect;

TEST_CASE("first_invalid_utf8 accepts UTF-8 and names the first bad byte") {
  CHECK_FALSE(first_invalid_utf8("plain ascii"));
  CHECK_FALSE(first_invalid_utf8("L1 \xc3\xa9t\xc3\xa9 \xe2\x86\x92 \xf0\x9f\x98\x80"));  // é → 😀
  CHECK(first_invalid_utf8("ab\xff") == 2u);
  CHECK(first_invalid_utf8("a\xc3") == 1u);            // cut short
  CHECK(first_invalid_utf8("\xc0\xaf") == 0u);         // overlong '/'
  CHECK(first_invalid_utf8("x\xed\xa0\x80") == 1u);    // a surrogate
  CHECK(first_invalid_utf8("\xf4\x90\x80\x80") == 0u); // above U+10FFFF
  CHECK(first_invalid_utf8("\xe2\x28\xa1") == 0u);     // bad continuation
}

TEST_CASE("utf16_or_32_bom names byte-order marks of other encodings") {
  CHECK(std::string(utf16_or_32_bom(std::string("\xff\xfe" "d\0", 4))) == "UTF-16LE");
  CHECK(std::string(utf16_or_32_bom("\xfe\xff")) == "UTF-16BE");
  CHECK(std::string(utf16_or_32_bom(std::string("\xff\xfe\0\0", 4))) == "UTF-32LE");
  CHECK(utf16_or_32_bom("dissect: 1") == nullptr);
  CHECK(utf16_or_32_bom("\xef\xbb\xbf" "dissect: 1") == nullptr);  // the UTF-8 BOM is UTF-8
}
