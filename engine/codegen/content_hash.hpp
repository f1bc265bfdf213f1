#pragma once
// A stable 128-bit content hash (two FNV-1a-64 lanes with different seeds and a
// final mix), printed as 32 hex digits. Used for compile-cache keys: stable
// across runs, machines and builds; not cryptographic.
#include <string>
#include <string_view>

namespace dissect {

class ContentHash {
 public:
  ContentHash& add(std::string_view bytes);
  // Adds a field with its length, so that ("ab","c") and ("a","bc") differ.
  ContentHash& field(std::string_view bytes);
  [[nodiscard]] std::string hex() const;

 private:
  unsigned long long a_ = 0xcbf29ce484222325ull;
  unsigned long long b_ = 0x84222325cbf29ce4ull;
};

}  // namespace dissect
