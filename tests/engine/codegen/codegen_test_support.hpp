#pragma once
// Experiments for the codegen tests, built from spec text.
#include <string>

#include "engine/device/kernel_family.hpp"
#include "engine/spec/spec.hpp"

namespace dissect::test {

inline Experiment pchase_experiment(const std::string& path, const std::string& element = "u32",
                                    const std::string& mode = "per_access", const std::string& clock = "clock") {
  const std::string size = path == "const" ? "8 KiB" : "16 KiB";
  return load_spec_text("dissect: 1\nname: t\nkernel: pchase\npath: " + path + "\nelement: " + element +
                            "\ntiming: {mode: " + mode + ", clock: " + clock + "}\narray: {size: " + size +
                            ", stride: 64 B}\niterations: 256\n",
                        "t.yaml")
      .base;
}

inline Experiment phases_experiment(const std::string& path_a, const std::string& path_b) {
  return load_spec_text("dissect: 1\nname: t\nkernel: phases\ntarget: l1\nlayout: {threads: 2, chasers: all}\n"
                        "arrays:\n  a: {path: " +
                            path_a + ", size: 8 KiB, stride: 128 B}\n  b: {path: " + path_b +
                            ", size: 8 KiB, stride: 128 B}\nphases:\n  - {thread: 0, array: a, action: warm}\n"
                            "  - {thread: 1, array: b, action: warm}\n  - {thread: 0, array: a, action: measure}\n",
                        "t.yaml")
      .base;
}

inline const char* const kAllPaths[] = {"ca", "cg", "cs", "cv", "lu", "ldg", "tex", "const", "shared"};

}  // namespace dissect::test
