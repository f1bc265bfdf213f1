#include <doctest/doctest.h>

#include <cmath>

#include "engine/report/data_file.hpp"
#include "engine/report/gnuplot_script.hpp"
#include "engine/report/report_format.hpp"

using namespace dissect::report;

TEST_CASE("size labels and quoting") {
  CHECK(size_label(16384) == "16 KiB");
  CHECK(size_label(2u << 20) == "2 MiB");
  CHECK(size_label(12320) == "12320 B");
  CHECK(size_label(1.5 * 1024 * 1024) == "1536 KiB");
  CHECK(size_label(1.5 * 1024 * 1024 + 8) == "1.50 MiB");
  CHECK(size_label(3ull << 30) == "3 GiB");
  CHECK(gp_quote("it's") == "'it''s'");
  CHECK(md_cell("a|b\nc") == "a\\|b c");
  CHECK(file_slug("mei/stage 2") == "mei_stage_2");
  CHECK(number_label(412.25) == "412.2");
  CHECK(number_label(30) == "30");
}

TEST_CASE("size axes: log2 with binary-unit tics over wide sweeps, linear with one unit over narrow ones") {
  const std::string wide = size_axis("x", 1024, 1 << 20, "array size N");
  CHECK(wide.find("set logscale x 2") != std::string::npos);
  CHECK(wide.find("'1 KiB' 1024") != std::string::npos);
  CHECK(wide.find("'1 MiB' 1048576") != std::string::npos);
  const std::string narrow = size_axis("x", 12320, 12800, "array size N");
  CHECK(narrow.find("logscale") == std::string::npos);
  CHECK(narrow.find("set xlabel 'array size N (KiB)'") != std::string::npos);
  CHECK(narrow.find("'12.5' 12800") != std::string::npos);  // sizes in KiB, not raw bytes
  // A narrow sweep around the H100's L1 (64 B steps): KiB with fractions, no "246784".
  const std::string l1 = size_axis("x", 246528, 247040, "array size N");
  CHECK(l1.find("set xlabel 'array size N (KiB)'") != std::string::npos);
  CHECK(l1.find("'241' 246784") != std::string::npos);
  CHECK(l1.find("'246784'") == std::string::npos);
  CHECK(size_axis("x", 100, 200, "N").find("set xlabel 'N (B)'") != std::string::npos);
  const std::string gib = size_axis("x", 1.5 * (1 << 30), 2.0 * (1 << 30), "N");
  CHECK(gib.find("set xlabel 'N (GiB)'") != std::string::npos);
  const std::string mib = size_axis("x", 130.0 * (1 << 20), 144.0 * (1 << 20), "N");
  CHECK(mib.find("set xlabel 'N (MiB)'") != std::string::npos);
  CHECK(mib.find("'132' ") != std::string::npos);
  CHECK(count_axis("x", {1, 2, 4, 8, 16, 32}, "warps").find("set logscale x 2") != std::string::npos);
  CHECK(count_axis("x", {1, 2, 3, 4}, "stride").find("logscale") == std::string::npos);
}

TEST_CASE("a script renders SVG then PNG from the same plot command") {
  const std::string s = render_script({"p", {"about"}, "set xlabel 'x'\n", "plot 'p.dat' using 1:2", 800, 500, "png"});
  CHECK(s.rfind("# about\n", 0) == 0);
  const auto svg = s.find("set terminal svg size 800,500");
  const auto png = s.find("set terminal png size 800,500");
  REQUIRE(svg != std::string::npos);
  REQUIRE(png != std::string::npos);
  CHECK(svg < png);
  CHECK(s.find("set output 'p.svg'") != std::string::npos);
  CHECK(s.find("set output 'p.png'\nreplot") != std::string::npos);
}

TEST_CASE("data files: comments, a column header, blocks two blank lines apart, NaN for unknowns") {
  DataFile f;
  f.name = "x.dat";
  f.comments = {"what"};
  f.columns = {"a", "b"};
  f.blocks = {{"first", {{"1", data_cell(2.5)}}}, {"second", {{"3", data_cell(std::nan(""))}, {"4", "has space"}}}};
  CHECK(f.text() == "# what\n# a b\n# [0] first\n1 2.5\n\n\n# [1] second\n3 NaN\n4 \"has space\"\n");
  CHECK(f.rows() == 3);
}
