#pragma once
// Where dissect finds its data at run time: kernel templates and the spec
// library (device profiles included). Looked up, in order: the environment
// variable, the source tree the binary was built from (if it still exists), next
// to the binary (build folder or install prefix).
#include <string>

namespace dissect {

std::string executable_dir();
std::string templates_dir();  // $DISSECT_TEMPLATES
std::string specs_dir();      // $DISSECT_SPECS
std::string cache_dir();      // $XDG_CACHE_HOME/dissect or ~/.cache/dissect

}  // namespace dissect
