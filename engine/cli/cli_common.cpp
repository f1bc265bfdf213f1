#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <stdexcept>

#include "dissect_git_revision.hpp"
#include "engine/cli/cli.hpp"
#include "engine/spec/spec_node.hpp"

namespace dissect::cli {
namespace fs = std::filesystem;

std::vector<std::string> expand_spec_arguments(const std::vector<std::string>& paths) {
  std::vector<std::string> out;
  for (const auto& p : paths) {
    if (fs::is_directory(p)) {
      std::vector<std::string> found;
      for (const auto& e : fs::recursive_directory_iterator(p)) {
        const auto ext = e.path().extension().string();
        if (e.is_regular_file() && (ext == ".yaml" || ext == ".yml")) found.push_back(e.path().string());
      }
      std::sort(found.begin(), found.end());
      out.insert(out.end(), found.begin(), found.end());
    } else {
      out.push_back(p);
    }
  }
  return out;
}

bool is_device_profile_file(const std::string& path) {
  try {
    const SpecNode root = load_yaml_file(path);
    return root.is_map() && root.find("dissect_profile") != nullptr;
  } catch (...) {
    return false;
  }
}

std::string version_line() {
  return std::string("dissect ") + DISSECT_VERSION + " (git " + DISSECT_GIT_REVISION + ")";
}

std::pair<std::string, std::string> split_assignment(const std::string& text, const std::string& option) {
  const auto eq = text.find('=');
  if (eq == std::string::npos || eq == 0)
    throw std::invalid_argument(option + " '" + text + "': expected key=value (e.g. array.size=16KiB)");
  return {text.substr(0, eq), text.substr(eq + 1)};
}

void print_findings(const std::vector<Finding>& findings, bool json) {
  if (json) {
    for (const auto& f : findings) std::cout << f.to_json().dump() << "\n";
    return;
  }
  std::size_t w = 8;
  for (const auto& f : findings) w = std::max(w, f.analyzer.size());
  for (const auto& f : findings) {
    std::string value = f.value.is_null() ? "undetermined" : f.value.is_string() ? f.value.get<std::string>() : f.value.dump();
    if (!f.unit.empty() && !f.value.is_null()) value += " " + f.unit;
    char conf[32];
    std::snprintf(conf, sizeof conf, "%.2f", f.confidence);
    std::cout << f.analyzer << std::string(w - f.analyzer.size() + 2, ' ') << value << "  (confidence " << conf << ")";
    if (!f.summary.empty()) std::cout << "\n" << std::string(w + 2, ' ') << f.summary;
    std::cout << "\n";
  }
}

}  // namespace dissect::cli
