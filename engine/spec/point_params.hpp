#pragma once
// The tidy parameters of a point, in a fixed order: the columns of a bundle's
// points.csv, and the params a simulated run notes on each trace. A spec-level
// view of a Point, so that devices and bundles both see it without seeing each other.
#include <string>
#include <utility>
#include <vector>

#include "engine/spec/spec.hpp"

namespace dissect {

std::vector<std::pair<std::string, std::string>> point_params(const Point& point);

}  // namespace dissect
