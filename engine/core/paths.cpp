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

// The source tree comes first when it exists (a developer's edits take effect
// without a rebuild); a carried or installed build uses the copy next to it.
static std::string find_data(const char* env, const std::string& leaf) {
  if (const char* v = std::getenv(env); v != nullptr && *v != '\0') return v;
  const fs::path exe = executable_dir();
  const std::vector<fs::path> candidates{fs::path(DISSECT_SOURCE_DIR) / leaf, exe / "share" / "dissect" / leaf,
                                         exe.parent_path() / "share" / "dissect" / leaf};
  for (const auto& c : candidates)
    if (fs::is_directory(c)) return c.string();
  return (fs::path(DISSECT_SOURCE_DIR) / leaf).string();
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
