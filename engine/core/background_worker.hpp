#pragma once
// A few long-lived worker threads ("lanes") for a run's side jobs (a bundle's directory,
// header and stored points, written while the device measures). Started once per
// process, before the first run (warm_up), so that no run pays for creating a thread
// (50-100 us) in its wall time, and a topology of sixty runs creates a few threads, not
// sixty. Jobs of one lane run one after another in the order given; lanes run side by
// side, so that a bundle still storing its last points does not hold up the next run's
// (each bundle takes the next lane: next_lane).
#include <cstddef>
#include <functional>
#include <future>

namespace dissect::background {

// Starts the lanes unless they run already. Cheap after the first call.
void warm_up();

// A lane for a new bundle: an idle one, in turn (0, 1, ..., back to 0), else the least loaded.
std::size_t next_lane();

// Runs the jobs still queued on every lane and stops the lanes; later jobs run on threads of
// their own. main() calls it before it returns (workers::finish says why).
void finish();

// Runs `job` on lane `lane` (modulo the lanes), after the jobs given to it before; the
// future holds the outcome (an exception `job` threw included). When no thread can be
// had, `job` runs on a thread of its own (std::async), as before the lanes existed.
std::future<void> run(std::function<void()> job, std::size_t lane = 0);

}  // namespace dissect::background
