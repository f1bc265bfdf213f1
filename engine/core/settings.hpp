#pragma once
// Process-wide switches of one dissect invocation, set from the command line
// (`--timing N`, `--no-cache` on `run` and `topology`). The environment variables
// DISSECT_CUDA_TIMING and DISSECT_NO_CACHE are fallbacks for scripts, read once,
// on first use; an option given on the command line overrides them.

namespace dissect::settings {

// 0: nothing; 1: where each GPU run's wall time went; 2: a timeline of its host steps.
int timing_level();
void set_timing_level(int level);

// false: every kernel is compiled afresh and nothing is stored in the compile cache.
bool compile_cache_enabled();
void set_compile_cache_enabled(bool on);

}  // namespace dissect::settings
