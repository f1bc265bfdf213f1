#pragma once
// After a kernel fault that left the GPU unusable in this process (CUDA asks for a new
// process: the context could not be recreated), `run` and `topology` go on in a fresh
// process: they re-execute themselves with the same options and what is left to do
// (docs/bundles.md and docs/topology.md, "Kernel faults").
#include <string>
#include <vector>

#include "engine/cli/parse_options.hpp"

namespace dissect::cli {

// Set (to batch_failed_value(): this process's id, which execv keeps) for the re-executed
// `dissect run` when a spec before it failed, so that the batch ends with a failure status all
// the same; read once and unset (batch_failed_before).
inline constexpr const char* kBatchFailedEnv = "DISSECT_BATCH_FAILED";
std::string batch_failed_value();

// Whether kBatchFailedEnv says an earlier part of this batch failed; unsets it, so that
// processes this one starts do not inherit it.
bool batch_failed_before();

// The words of `parsed` whose option key is not in `drop` (positional arguments are dropped too).
std::vector<std::string> option_words(const std::vector<ParsedOption>& parsed, const std::vector<std::string>& drop);

// Flushes stdout and stderr and replaces this process with `argv` run by this same binary
// (/proc/self/exe; argv[0] when that cannot be executed). Returns only when neither could be
// executed, with why.
std::string reexec_self(const std::vector<std::string>& argv);

}  // namespace dissect::cli
