// Size labels of plot axes: binary units, never raw bytes above 1 KiB.
#include <doctest/doctest.h>

#include "engine/report/report_format.hpp"

using namespace dissect::report;

TEST_CASE("size labels: one binary unit for a set of sizes, bytes only below 1 KiB") {
  CHECK(size_labels({1024, 2048, 3072}) == std::vector<std::string>{"1 KiB", "2 KiB", "3 KiB"});
  CHECK(size_labels({12288, 12320}) == std::vector<std::string>{"12 KiB", "12.03125 KiB"});
  CHECK(size_labels({24117248, 25165824}) == std::vector<std::string>{"23 MiB", "24 MiB"});
  CHECK(size_labels({512, 768}) == std::vector<std::string>{"512 B", "768 B"});
  CHECK(size_labels({1.5 * (1 << 30)}) == std::vector<std::string>{"1.5 GiB"});
  CHECK(size_label(246784) == "241 KiB");
}
