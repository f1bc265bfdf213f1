#include "engine/codegen/template_loader.hpp"

#include <filesystem>
#include <set>
#include <sstream>

#include "engine/core/diagnostics.hpp"
#include "engine/core/files.hpp"
#include "engine/core/paths.hpp"

namespace dissect {
namespace fs = std::filesystem;

namespace {

// `#include "x.cuh"` -> "x.cuh"; anything else -> "".
std::string quoted_include(const std::string& line) {
  std::size_t i = line.find_first_not_of(" \t");
  if (i == std::string::npos || line[i] != '#') return "";
  i = line.find_first_not_of(" \t", i + 1);
  if (i == std::string::npos || line.compare(i, 7, "include") != 0) return "";
  const std::size_t q1 = line.find('"', i + 7);
  if (q1 == std::string::npos) return "";
  const std::size_t q2 = line.find('"', q1 + 1);
  if (q2 == std::string::npos) return "";
  return line.substr(q1 + 1, q2 - q1 - 1);
}

void inline_file(const fs::path& dir, const std::string& file, std::set<std::string>& seen, LoadedTemplate& out,
                 int depth) {
  if (depth > 16) throw RunError("kernel template include chain too deep at " + file);
  if (!seen.insert(file).second) return;
  const fs::path path = dir / file;
  if (!fs::is_regular_file(path))
    throw RunError("kernel template '" + file + "' not found in " + dir.string() +
                   " (set DISSECT_TEMPLATES to the kernels_templates folder)");
  out.files.push_back(path.string());
  std::istringstream in(read_text_file(path.string()));
  std::string line;
  out.text += "// ---- " + file + " ----\n";
  while (std::getline(in, line)) {
    const std::string inc = quoted_include(line);
    if (!inc.empty()) {
      inline_file(dir, inc, seen, out, depth + 1);
      continue;
    }
    out.text += line;
    out.text += '\n';
  }
}

}  // namespace

TemplateLoader::TemplateLoader(std::string dir) : dir_(dir.empty() ? templates_dir() : std::move(dir)) {}

LoadedTemplate TemplateLoader::load(const std::string& name) const {
  LoadedTemplate t;
  t.name = name;
  std::set<std::string> seen;
  inline_file(fs::path(dir_), name + ".cuh", seen, t, 0);
  return t;
}

}  // namespace dissect
