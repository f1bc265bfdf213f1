#pragma once
// The format check of `dissect export accelsim`: a gpgpusim.config / trace.config
// text against the rules GPGPU-Sim's option and cache-configuration parsers apply
// (gpgpu-sim src/gpgpu-sim/gpu-cache.h cache_config::init, gpu-sim.cc option
// definitions; docs/export.md lists the rules). Every option line must name an
// option this check knows, with a value the simulator accepts: a cache line
// "<N|S>:<sets>:<line>:<ways>,<L|F>:<R|B|T|E|L>:<m|f|s>:<N|W|F|L>:<L|X|H|P|C>,
// <A|S|F|T>:<n>:<n>,<n>[:<n>[,<n>]]" with the combinations the simulator refuses
// (sector lines other than 4 x 32 B, write-back allocate-on-fill, ...) reported.
#include <cstddef>
#include <string>
#include <vector>

namespace dissect {

struct AccelSimProblem {
  std::size_t line = 0;  // 1-based
  std::string message;
};

// Problems of the text (none: it passes).
std::vector<AccelSimProblem> check_accelsim_config(const std::string& text);

// The problems of one cache-configuration value ("S:4:128:64,L:T:m:L:L,A:512:64,16:0,32");
// `cache` is the option's cache: "dl1", "dl2", "tex", "const" or "il1".
std::vector<std::string> check_accelsim_cache(const std::string& value, const std::string& cache);

}  // namespace dissect
