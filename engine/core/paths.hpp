#pragma once
// Where dissect finds its data at run time: kernel templates and the spec
// library (device profiles included). Looked up, in order: the environment
// variable; for an installed binary (<prefix>/bin/dissect) <prefix>/share/dissect;
// the source tree the binary was built from (if it still exists); the copy next to
// the binary (a build folder's share/dissect).
#include <string>
#include <vector>

namespace dissect {

std::string executable_dir();
// The directories tried for `leaf` ("specs", "kernels_templates") by a binary in
// exe_dir, in order (without the environment variable).
std::vector<std::string> data_candidates(const std::string& exe_dir, const std::string& leaf);
std::string templates_dir();  // $DISSECT_TEMPLATES
std::string specs_dir();      // $DISSECT_SPECS
std::string cache_dir();      // $XDG_CACHE_HOME/dissect or ~/.cache/dissect

}  // namespace dissect
