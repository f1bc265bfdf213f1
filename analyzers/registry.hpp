#pragma once
#include <memory>
#include <string>
#include <vector>

#include "analyzers/analyzer.hpp"

namespace dissect {

// Every analyzer, in a stable order.
const std::vector<std::unique_ptr<Analyzer>>& analyzers();
const Analyzer* find_analyzer(const std::string& name);
std::vector<std::string> analyzer_names();

}  // namespace dissect
