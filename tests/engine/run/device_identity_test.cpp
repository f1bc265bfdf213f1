// The identity a resumption checks: model, PCI slot, host and driver, not clocks.
#include "engine/run/device_identity.hpp"

#include <doctest/doctest.h>

using namespace dissect;
using json = nlohmann::json;

namespace {
const json kGpu = {{"kind", "cuda"},          {"name", "NVIDIA H100 80GB HBM3"}, {"compute_capability", "9.0"},
                   {"sm_count", 132},         {"pci_bus_id", "0000:19:00.0"},    {"driver_version", "13.0"},
                   {"driver_release", "580.65.06"}, {"sm_clock_khz_now", 1980000.0}};
}

TEST_CASE("the same GPU of the same machine is the same identity, whatever its clock read") {
  json later = kGpu;
  later["sm_clock_khz_now"] = 1410000.0;
  later["memory_clock_khz_now"] = 2619000.0;
  CHECK(identity_difference(device_identity(kGpu, "node1"), device_identity(later, "node1")).empty());
  CHECK(device_identity(kGpu, "node1")["host"] == "node1");
  CHECK_FALSE(device_identity(kGpu, "node1").contains("sm_clock_khz_now"));
}

TEST_CASE("another PCI slot, host or driver differs, each named with both values") {
  const json was = device_identity(kGpu, "node1");
  json other_slot = kGpu;
  other_slot["pci_bus_id"] = "0000:2a:00.0";
  CHECK(identity_difference(was, device_identity(other_slot, "node1")) ==
        "pci_bus_id: 0000:19:00.0, now 0000:2a:00.0");
  CHECK(identity_difference(was, device_identity(kGpu, "node2")) == "host: node1, now node2");
  json other_driver = kGpu;
  other_driver["driver_release"] = "575.57.08";
  CHECK(identity_difference(was, device_identity(other_driver, "node1")) ==
        "driver_release: 580.65.06, now 575.57.08");
  json without_nvml = kGpu;
  without_nvml.erase("driver_release");
  // NVML missing on one side says nothing about the driver: driver_version still decides.
  CHECK(identity_difference(was, device_identity(without_nvml, "node1")).empty());
  json both = other_slot;
  both["driver_version"] = "12.8";
  const std::string d = identity_difference(was, device_identity(both, "node9"));
  CHECK(d.find("host: node1, now node9") != std::string::npos);
  CHECK(d.find("pci_bus_id") != std::string::npos);
  CHECK(d.find("driver_version: 13.0, now 12.8") != std::string::npos);
}

TEST_CASE("a simulated profile is identified by its text, whose difference is named, not printed") {
  const json a = {{"kind", "sim"}, {"name", "fermi"}, {"profile_text", std::string(500, 'a')}};
  json b = a;
  b["profile_text"] = std::string(500, 'b');
  CHECK(identity_difference(device_identity(a, "h"), device_identity(b, "h")) ==
        "profile_text: (500 characters), now (500 characters)");
}
