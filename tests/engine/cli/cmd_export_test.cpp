// dissect export: --help, exit statuses, files written, --check.
#include <doctest/doctest.h>

#include "support/process.hpp"
#include "support/temp_dir.hpp"

using dissect::test::run_dissect;
using dissect::test::TempDir;

namespace {
const std::string kH100 = std::string(DISSECT_SOURCE_DIR) + "/results/h100/topology/final/run2.json";
}

TEST_CASE("export: --help, and bad arguments exit 2") {
  const auto h = run_dissect("export --help");
  CHECK(h.status == 0);
  CHECK(h.output.find("Usage: dissect export accelsim") != std::string::npos);
  CHECK(run_dissect("export").status == 2);
  CHECK(run_dissect("export gem5 " + kH100).status == 2);
  CHECK(run_dissect("export accelsim").status == 2);
  CHECK(run_dissect("export accelsim /nonexistent/topology").status == 2);
  CHECK(run_dissect("export accelsim --no-such-option " + kH100).status == 2);
  TempDir dir;
  const auto r = run_dissect("export accelsim " + dir.write("x.json", "{\"not\": \"a topology\"}"));
  CHECK(r.status == 2);
  CHECK(r.output.find("not a topology.json") != std::string::npos);
  CHECK(run_dissect("export accelsim --check").status == 2);
  CHECK(run_dissect("export accelsim --check /nonexistent.config").status == 2);
}

TEST_CASE("export accelsim: stdout, files, and the files pass --check") {
  const auto r = run_dissect("export accelsim " + kH100);
  CHECK(r.status == 0);
  // The L1's measured 128 B lines of 32 B sectors (S); its sets and ways are a stated default.
  CHECK(r.output.find("-gpgpu_cache:dl1 S:") != std::string::npos);
  CHECK(r.output.find(":128:") != std::string::npos);
  CHECK(r.output.find("[default: not measured") != std::string::npos);
  TempDir dir;
  const auto w = run_dissect("export accelsim " + kH100 + " -o " + dir.file("g.config") + " --trace-config " +
                             dir.file("t.config"));
  CHECK(w.status == 0);
  const std::string g = dissect::test::read_file(dir.file("g.config"));
  CHECK(g.find("-gpgpu_l1_latency 39") != std::string::npos);
  CHECK(dissect::test::read_file(dir.file("t.config")).find("-trace_opcode_latency_initiation_spec_op_2 88,4") !=
        std::string::npos);
  const auto c = run_dissect("export accelsim --check " + dir.file("g.config") + " " + dir.file("t.config"));
  CHECK(c.status == 0);
  CHECK(c.output.find("passes the Accel-Sim format check") != std::string::npos);
  // A config the simulator would refuse: status 1, file:line: message.
  const auto bad = run_dissect("export accelsim --check " +
                               dir.write("bad.config", "# x\n-gpgpu_cache:dl1 S:4:64:4,L:T:m:N:L,A:8:4\n"));
  CHECK(bad.status == 1);
  CHECK(bad.output.find("bad.config:2: -gpgpu_cache:dl1: sector cache (S) with 64 B lines") != std::string::npos);
}
