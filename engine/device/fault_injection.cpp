#include "engine/device/fault_injection.hpp"

#include <cstdlib>
#include <filesystem>

#include "engine/spec/spec.hpp"

namespace dissect {

const std::optional<InjectedFault>& injected_fault() {
  static const std::optional<InjectedFault> fault = []() -> std::optional<InjectedFault> {
    const char* v = std::getenv("DISSECT_TEST_INJECT_FAULT");
    if (v == nullptr || *v == '\0') return std::nullopt;
    const std::string text = v;
    const auto colon = text.rfind(':');
    if (colon == std::string::npos || colon == 0 || colon + 1 == text.size()) return std::nullopt;
    InjectedFault f;
    f.spec = text.substr(0, colon);
    try {
      std::size_t used = 0;
      f.point = std::stoull(text.substr(colon + 1), &used);
      if (used != text.size() - colon - 1) return std::nullopt;
    } catch (const std::exception&) {
      return std::nullopt;
    }
    return f;
  }();
  return fault;
}

bool fault_injected_at(const RunRequest& request, const Point& point) {
  const auto& f = injected_fault();
  if (!f || request.spec == nullptr || point.id != f->point) return false;
  return request.spec->base.name == f->spec ||
         std::filesystem::path(request.spec->path).stem().string() == f->spec;
}

std::string fault_location(const RunRequest& request, const Point& point) {
  std::string s = "spec " + (request.spec != nullptr ? request.spec->path : std::string("?")) + ", point #" +
                  std::to_string(point.id);
  if (!point.axis_values.empty()) {
    s += " (";
    for (std::size_t i = 0; i < point.axis_values.size(); ++i)
      s += (i ? ", " : "") + point.axis_values[i].first + "=" + point.axis_values[i].second;
    s += ")";
  }
  return s;
}

}  // namespace dissect
