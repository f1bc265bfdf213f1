#include "engine/run/device_identity.hpp"

namespace dissect {

namespace {
// The model (or profile), where it sits and what drives it. driver_release (NVML) is
// there only where NVML was: compared only where both descriptions have it.
const char* const kIdentityKeys[] = {"kind",       "name",           "compute_capability", "sm_count", "profile_text",
                                     "pci_bus_id", "driver_version", "driver_release"};

std::string shown(const nlohmann::json& v) {
  if (v.is_null()) return "none";
  if (v.is_string()) {
    const std::string s = v.get<std::string>();
    // A profile's text is long: its difference is named, not shown.
    return s.size() > 60 ? "(" + std::to_string(s.size()) + " characters)" : s;
  }
  return v.dump();
}
}  // namespace

nlohmann::json device_identity(const nlohmann::json& description, const std::string& host) {
  nlohmann::json id = nlohmann::json::object();
  if (description.is_object())
    for (const char* key : kIdentityKeys)
      if (description.contains(key)) id[key] = description[key];
  id["host"] = host;
  return id;
}

std::string identity_difference(const nlohmann::json& was, const nlohmann::json& now) {
  std::string out;
  const auto differs = [&](const std::string& key) {
    const nlohmann::json a = was.is_object() && was.contains(key) ? was[key] : nlohmann::json();
    const nlohmann::json b = now.is_object() && now.contains(key) ? now[key] : nlohmann::json();
    // NVML's driver release is there only when NVML could be loaded: compared where both have it
    // (driver_version, from the driver itself, is always compared).
    if (key == "driver_release" && (a.is_null() || b.is_null())) return;
    if (a != b) out += (out.empty() ? "" : "; ") + key + ": " + shown(a) + ", now " + shown(b);
  };
  differs("host");
  for (const char* key : kIdentityKeys) differs(key);
  return out;
}

}  // namespace dissect
