#pragma once
// --timing 2: a timeline of one run's host steps, for finding what is on the
// critical path of a short sweep (the per-part sums of --timing 1 cannot tell
// a wait from work done meanwhile on another thread). Marks are cheap no-ops otherwise.
#include <cstdio>
#include <string_view>

namespace dissect::timeline {

// Whether the timing level is 2 (--timing 2, DISSECT_CUDA_TIMING=2, or enable()).
bool enabled();
// Turns marking on (timing level 2) or off (level 0) whatever the environment says.
void enable(bool on);

// Records `what` (a string literal or a string that outlives the run) with the time since
// the process started and the calling thread.
void mark(std::string_view what);

// Prints the marks so far, oldest first, and forgets them.
void print(std::FILE* to);

}  // namespace dissect::timeline
