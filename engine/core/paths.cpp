#include "engine/core/paths.hpp"

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <vector>

namespace dissect {
namespace fs = std::filesystem;

std::string executable_dir() {
  std::error_code ec;
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  return ec ? std::string(".") : exe.parent_path().string();
}

// An installed binary (<prefix>/bin/dissect) reads <prefix>/share/dissect first:
// the source tree it was built from may be gone, or hold another version. A
// binary in a build folder reads the source tree (a developer's edits take effect
// without a rebuild), then the copy next to it (a carried build folder).
std::vector<std::string> data_candidates(const std::string& exe_dir, const std::string& leaf) {
  const fs::path exe(exe_dir);
  const fs::path installed = exe.parent_path() / "share" / "dissect" / leaf;
  std::vector<std::string> c;
  if (exe.filename() == "bin") c.push_back(installed.string());
  c.push_back((fs::path(DISSECT_SOURCE_DIR) / leaf).string());
  c.push_back((exe / "share" / "dissect" / leaf).string());
  if (exe.filename() != "bin") c.push_back(installed.string());
  return c;
}

static std::string find_data(const char* env, const std::string& leaf) {
  if (const char* v = std::getenv(env); v != nullptr && *v != '\0') return v;
  const auto candidates = data_candidates(executable_dir(), leaf);
  for (const auto& c : candidates)
    if (fs::is_directory(c)) return c;
  return candidates.front();
}

std::string templates_dir() { return find_data("DISSECT_TEMPLATES", "kernels_templates"); }
std::string specs_dir() { return find_data("DISSECT_SPECS", "specs"); }

std::string cache_dir() {
  if (const char* x = std::getenv("XDG_CACHE_HOME"); x != nullptr && *x != '\0')
    return (fs::path(x) / "dissect").string();
  if (const char* h = std::getenv("HOME"); h != nullptr && *h != '\0')
    return (fs::path(h) / ".cache" / "dissect").string();
  return (fs::temp_directory_path() / "dissect-cache").string();
}

}  // namespace dissect
