#pragma once
// DISSECT_CUDA_TIMING=2: a timeline of one run's host steps, for finding what is on the
// critical path of a short sweep (the per-part sums of DISSECT_CUDA_TIMING=1 cannot tell
// a wait from work done meanwhile on another thread). Marks are cheap no-ops otherwise.
#include <cstdio>
#include <string_view>

namespace dissect::timeline {

// Whether DISSECT_CUDA_TIMING=2 is set (read once), or enable() said so.
bool enabled();
// Turns marking on or off whatever the environment says (tests).
void enable(bool on);

// Records `what` (a string literal or a string that outlives the run) with the time since
// the process started and the calling thread.
void mark(std::string_view what);

// Prints the marks so far, oldest first, and forgets them.
void print(std::FILE* to);

}  // namespace dissect::timeline
