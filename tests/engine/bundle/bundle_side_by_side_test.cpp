// A batch of many samples is formatted on the worker pool, segment by segment: trace.csv
// and points.csv must be byte for byte those of formatting in order, on one thread.
#include <doctest/doctest.h>

#include <fstream>

#include "engine/core/files.hpp"
#include "support/process.hpp"
#include "support/temp_dir.hpp"

using dissect::read_text_file;
using dissect::test::run_command;
using dissect::test::TempDir;

TEST_CASE("trace.csv formatted side by side on workers equals trace.csv formatted in order") {
  TempDir dir;
  // One point of 300,000 timed accesses: past the side-by-side threshold (2^17 samples).
  {
    std::ofstream spec(dir.file("big.yaml"));
    spec << "dissect: 1\nname: big\nkernel: pchase\nelement: u32\ntiming: {mode: per_access, clock: clock}\n"
            "layout: {blocks: 1, threads: 1, chasers: 1}\npath: ca\nwarmup: 1\niterations: 300000\n"
            "array: {size: 96 KiB, stride: 128 B}\nsweep:\n  array.size: [96 KiB, 512 KiB]\n";
  }
  const auto run = [&](const char* workers, const std::string& out) {
    return run_command(std::string("DISSECT_WORKERS=") + workers + " '" + DISSECT_BINARY + "' run " + dir.file("big.yaml") +
                       " --device sim:h100-sxm --out " + out);
  };
  const auto in_order = run("1", dir.file("one"));  // one worker: formatted on the run's thread
  REQUIRE(in_order.status == 0);
  const auto side_by_side = run("4", dir.file("four"));
  REQUIRE(side_by_side.status == 0);
  const std::string a = read_text_file(dir.file("one/big/trace.csv"));
  CHECK(a.size() > 600000 * 20);  // 2 points x 300,000 rows
  CHECK(a == read_text_file(dir.file("four/big/trace.csv")));
  CHECK(read_text_file(dir.file("one/big/points.csv")) == read_text_file(dir.file("four/big/points.csv")));
}
