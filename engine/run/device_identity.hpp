#pragma once
// What identifies the device a run measured on, for a resumption (dissect run --resume,
// dissect topology --resume): the same GPU model in the same PCI slot of the same
// machine under the same driver, or the same simulated profile; not the clocks it ran
// at. A resumed run or topology continues only on the device it started on, and
// records the identity it continued on in its "resumed" list.
#include <string>

#include <nlohmann/json.hpp>

namespace dissect {

// From a device description (Device::describe, bundle.json "device") and the host's name.
nlohmann::json device_identity(const nlohmann::json& description, const std::string& host);

// "" when `was` and `now` are the same identity; else each field that differs, with both
// values: "host: a, now b; pci_bus_id: 0000:01:00.0, now 0000:41:00.0".
std::string identity_difference(const nlohmann::json& was, const nlohmann::json& now);

}  // namespace dissect
