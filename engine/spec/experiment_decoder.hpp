#pragma once
// SpecNode -> Experiment. Every problem is recorded as file:line:col in the
// Diagnostics; decoding goes on after an error so a user sees all of them.
#include "engine/spec/experiment.hpp"
#include "engine/spec/spec_node.hpp"

namespace dissect {

// Top-level keys that belong to the spec file rather than the experiment
// (handled by the spec loader, skipped by the decoder).
bool is_file_level_key(const std::string& key);

// Decodes an experiment from a merged spec tree. `check_runnable` adds the
// checks that only make sense for a complete experiment (off for abstract base
// files).
Experiment decode_experiment(const SpecNode& root, Diagnostics& diags);

// Every key the spec language knows, as dotted paths ("array.size"), for
// "did you mean" on sweep axes and --set.
const std::vector<std::string>& known_field_paths();

}  // namespace dissect
