#pragma once
// Reads kernel templates (kernels_templates/*.cuh) at run time. A template may
// `#include "other.cuh"` from the same folder; the loader inlines each such
// file once, so the generated source is self-contained (NVRTC needs no include
// path, and the bundle keeps exactly what was compiled).
#include <string>
#include <vector>

namespace dissect {

struct LoadedTemplate {
  std::string name;                 // "pchase"
  std::string text;                 // includes inlined
  std::vector<std::string> files;   // every file read, in order
};

class TemplateLoader {
 public:
  // `dir` empty: templates_dir() ($DISSECT_TEMPLATES, next to the binary, or the source tree).
  explicit TemplateLoader(std::string dir = "");
  // Loads `<name>.cuh`; throws RunError naming the folder when it is missing.
  [[nodiscard]] LoadedTemplate load(const std::string& name) const;
  [[nodiscard]] const std::string& dir() const { return dir_; }

 private:
  std::string dir_;
};

}  // namespace dissect
