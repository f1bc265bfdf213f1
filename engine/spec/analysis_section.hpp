#pragma once
// The analysis part of a spec: the analyzers that run on its points (with their
// parameters) and what their findings are expected to say. Decoded on its own,
// apart from the experiment, so that `dissect analyze` can take it from the
// expanded spec a bundle recorded without decoding the experiment again (which
// an older bundle's tree might no longer pass) and without reading any file.
#include <vector>

#include "engine/core/diagnostics.hpp"
#include "engine/spec/experiment.hpp"
#include "engine/spec/spec_node.hpp"

namespace dissect {

struct AnalysisSection {
  std::vector<AnalyzerRequest> analyzers;  // in the spec's order
  std::vector<Expectation> expectations;
};

// Decodes `analyzers:` and `expect:` of a merged spec tree; every problem goes
// to `diags` as file:line:col. A tree that is not a mapping has neither (the
// experiment decoder reports that).
AnalysisSection decode_analysis_section(const SpecNode& root, Diagnostics& diags);

}  // namespace dissect
