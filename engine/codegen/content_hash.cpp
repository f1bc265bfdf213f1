#include "engine/codegen/content_hash.hpp"

#include <cstdio>

namespace dissect {
namespace {
constexpr unsigned long long kPrime = 0x100000001b3ull;
unsigned long long mix(unsigned long long x) {  // splitmix64 finaliser
  x ^= x >> 30;
  x *= 0xbf58476d1ce4e5b9ull;
  x ^= x >> 27;
  x *= 0x94d049bb133111ebull;
  x ^= x >> 31;
  return x;
}
}  // namespace

ContentHash& ContentHash::add(std::string_view bytes) {
  for (const char c : bytes) {
    const auto u = static_cast<unsigned char>(c);
    a_ = (a_ ^ u) * kPrime;
    b_ = (b_ ^ static_cast<unsigned char>(u ^ 0x5a)) * kPrime;
  }
  return *this;
}

ContentHash& ContentHash::field(std::string_view bytes) {
  const std::string len = std::to_string(bytes.size()) + ":";
  add(len);
  return add(bytes);
}

std::string ContentHash::hex() const {
  char buf[40];
  std::snprintf(buf, sizeof buf, "%016llx%016llx", mix(a_ ^ (b_ << 1)), mix(b_ + 0x9e3779b97f4a7c15ull * a_));
  return buf;
}

}  // namespace dissect
