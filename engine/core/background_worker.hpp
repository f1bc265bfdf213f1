#pragma once
// One long-lived worker thread for a run's side jobs (a bundle's directory and header,
// written while the device sets up). Started once per process, before the first run
// (warm_up), so that no run pays for creating a thread (50-100 us) in its wall time,
// and a topology of forty runs creates one thread, not forty.
#include <functional>
#include <future>

namespace dissect::background {

// Starts the worker unless it runs already. Cheap after the first call.
void warm_up();

// Runs `job` on the worker, after the jobs given before it; the future holds the
// outcome (an exception `job` threw included). When no thread can be had, `job` runs
// on a thread of its own (std::async), as before the worker existed.
std::future<void> run(std::function<void()> job);

}  // namespace dissect::background
