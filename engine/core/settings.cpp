#include "engine/core/settings.hpp"

#include <atomic>
#include <cstdlib>
#include <string>

namespace dissect::settings {
namespace {

int env_timing_level() {
  const char* v = std::getenv("DISSECT_CUDA_TIMING");
  if (v == nullptr) return 0;
  const std::string s(v);
  return s == "1" ? 1 : s == "2" ? 2 : 0;
}

bool env_cache_enabled() {
  const char* v = std::getenv("DISSECT_NO_CACHE");
  return v == nullptr || std::string(v) != "1";
}

std::atomic<int>& timing() {
  static std::atomic<int> level{env_timing_level()};
  return level;
}

std::atomic<bool>& cache() {
  static std::atomic<bool> on{env_cache_enabled()};
  return on;
}

}  // namespace

int timing_level() { return timing().load(std::memory_order_relaxed); }
void set_timing_level(int level) { timing().store(level); }

bool compile_cache_enabled() { return cache().load(std::memory_order_relaxed); }
void set_compile_cache_enabled(bool on) { cache().store(on); }

}  // namespace dissect::settings
