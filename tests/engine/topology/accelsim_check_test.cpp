// The Accel-Sim format check: the rules of GPGPU-Sim's option and cache parsers.
#include <doctest/doctest.h>

#include "engine/topology/accelsim_check.hpp"

using namespace dissect;

namespace {

bool mentions(const std::vector<std::string>& problems, const std::string& text) {
  for (const auto& p : problems)
    if (p.find(text) != std::string::npos) return true;
  return false;
}

}  // namespace

TEST_CASE("accelsim check: well-formed cache lines of every kind pass") {
  CHECK(check_accelsim_cache("S:4:128:64,L:T:m:L:L,A:512:64,16:0,32", "dl1").empty());
  CHECK(check_accelsim_cache("N:64:128:16,L:B:m:N:L,A:256:4,32:0", "dl2").empty());
  CHECK(check_accelsim_cache("S:256:128:20,L:B:m:L:X,A:384:4,32:0,32", "dl2").empty());
  CHECK(check_accelsim_cache("N:4:128:256,L:R:m:N:L,T:512:8,128:2", "tex").empty());
  CHECK(check_accelsim_cache("N:128:64:8,L:R:f:N:L,S:2:64,4", "const").empty());
  CHECK(check_accelsim_cache("N:32:128:4,L:R:f:N:H,A:2:48", "il1").empty());  // 12 fields: the minimum
  CHECK(check_accelsim_cache("none", "dl1").empty());
}

TEST_CASE("accelsim check: what the simulator's parser refuses") {
  CHECK(mentions(check_accelsim_cache("S:4:64:64,L:T:m:L:L,A:512:64,16:0", "dl1"), "lines must be 128 B"));
  CHECK(mentions(check_accelsim_cache("N:4:128:64,R:T:m:L:L,A:512:64,16:0", "dl1"), "replacement 'R'"));
  CHECK(mentions(check_accelsim_cache("N:4:128:64,L:Q:m:L:L,A:512:64,16:0", "dl1"), "write policy 'Q'"));
  CHECK(mentions(check_accelsim_cache("N:4:128:64,L:B:f:N:L,A:512:64,16:0", "dl2"), "write-back cache (B) cannot"));
  CHECK(mentions(check_accelsim_cache("N:4:128:64,L:T:f:L:L,A:512:64,16:0", "dl1"), "need allocate-on-miss"));
  CHECK(mentions(check_accelsim_cache("N:6:128:64,L:T:m:N:L,A:512:64,16:0", "dl1"), "power of two"));
  CHECK(mentions(check_accelsim_cache("N:4:96:64,L:T:m:N:L,A:512:64,16:0", "dl1"), "line size 96"));
  CHECK(mentions(check_accelsim_cache("N:16:128:4,L:R:f:N:H,A:2:48", "il1"), "32 or 64 sets"));
  CHECK(mentions(check_accelsim_cache("N:4:128:256,L:R:m:N:L,T:512:8,128:2,32", "tex"), "texture FIFO"));
  CHECK(mentions(check_accelsim_cache("N:4:128:256,L:R:m:N:L,A:512:8,128:2", "tex"), "fragment FIFO"));
  CHECK(mentions(check_accelsim_cache("N:4:128:64,L:T:m:N:L,A:512:64,16:0,48", "dl1"), "does not divide"));
  CHECK(mentions(check_accelsim_cache("N:4:128,L:T:m:N:L,A:512:64", "dl1"), "fields per group"));
  CHECK(mentions(check_accelsim_cache("N:4:128:64", "dl1"), "expected"));
  CHECK(mentions(check_accelsim_cache("N:0:128:64,L:T:m:N:L,A:512:64", "dl1"), "no positive count"));
  CHECK(check_accelsim_cache("N:4:128:64,L:R:m:N:L,A:8:4", "dl1").empty());  // a read-only data cache is fine
  CHECK(mentions(check_accelsim_cache("N:4:128:64,L:T:m:N:L,A:8:4", "const"), "write policy R"));
}

TEST_CASE("accelsim check: whole files, line by line") {
  const std::string good =
      "# a comment\n"
      "\n"
      "-gpgpu_cache:dl1 S:4:128:64,L:T:m:L:L,A:512:64,16:0,32\n"
      "-gpgpu_unified_l1d_size 256\n"
      "-gpgpu_l1_latency 39\n"
      "-gpgpu_clock_domains 1980:1980:1980:2261.5\n"
      "-specialized_unit_2 1,4,88,4,4,TEX\n"
      "-trace_opcode_latency_initiation_spec_op_2 88,4\n";
  CHECK(check_accelsim_config(good).empty());

  const auto bad = check_accelsim_config(
      "-gpgpu_l1_latency 39.5\n"           // 1: no integer
      "-gpgpu_cache:dl1 N:4:128:60,L:T:m:N:L,A:8:4\n"  // 2: fine alone
      "-gpgpu_unified_l1d_size 256\n"      // 3: 256 KiB is no multiple of 30 KiB
      "-no_such_option 1\n"                // 4
      "gpgpu_l1_latency 3\n"               // 5: no dash
      "-gpgpu_clock_domains 1980:1980\n"   // 6
      "-gpgpu_l1_latency 40\n"             // 7: twice
      "-specialized_unit_2 1,4,88,TEX\n"   // 8
      "-gpgpu_n_mem\n");                   // 9: no value
  auto at = [&](std::size_t line, const std::string& text) {
    for (const auto& p : bad)
      if (p.line == line && p.message.find(text) != std::string::npos) return true;
    return false;
  };
  CHECK(at(1, "no unsigned integer"));
  CHECK(at(3, "no whole multiple"));
  CHECK(at(4, "unknown option"));
  CHECK(at(5, "starts with '-'"));
  CHECK(at(6, "<core>:<interconnect>:<L2>:<DRAM>"));
  CHECK(at(7, "given twice"));
  CHECK(at(8, "<enabled>,<units>"));
  CHECK(at(9, "no value"));
  CHECK(bad.size() == 8);
}
