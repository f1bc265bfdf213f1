#include "engine/spec/identifier.hpp"

#include <doctest/doctest.h>

#include <string>

using namespace dissect;

TEST_CASE("a name is one printable path component of bounded length") {
  for (const char* ok : {"l1_size", "topology_l2_size-2", "a.b", "caf\xc3\xa9", "with space", "..."}) {
    CAPTURE(ok);
    CHECK_FALSE(name_problem(ok).has_value());
  }
  CHECK(name_problem("")->find("empty") != std::string::npos);
  CHECK(name_problem(".")->find("is not a name") != std::string::npos);
  CHECK(name_problem("..")->find("is not a name") != std::string::npos);
  CHECK(name_problem("../x")->find("not a path") != std::string::npos);
  CHECK(name_problem("a\\b")->find("not a path") != std::string::npos);
  CHECK(name_problem("a\nb")->find("control character") != std::string::npos);
  CHECK(name_problem(std::string("a\0b", 3))->find("control character") != std::string::npos);
  CHECK(name_problem("caf\xe9")->find("not valid UTF-8") != std::string::npos);
  CHECK_FALSE(name_problem(std::string(kMaxNameBytes, 'n')).has_value());
  CHECK(name_problem(std::string(kMaxNameBytes + 1, 'n'))->find("at most 128") != std::string::npos);
}
