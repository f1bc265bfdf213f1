#pragma once
// Quantities with units: "12 KiB", "4 B", "3073 elements", "2 MiB".
// Sizes are binary (KiB = 1024 B). "KB", "MB", "GB" are accepted as aliases of
// KiB, MiB, GiB because the papers dissect reproduces use them that way; the
// reference says so. Element counts are resolved to bytes once the element
// type of the experiment is known.
#include <cstdint>
#include <optional>
#include <string>

namespace dissect {

enum class QuantityUnit { bytes, elements };

struct Quantity {
  std::uint64_t amount = 0;  // in bytes, or in elements when unit == elements
  QuantityUnit unit = QuantityUnit::bytes;

  [[nodiscard]] std::uint64_t bytes(std::uint64_t element_bytes) const {
    return unit == QuantityUnit::elements ? amount * element_bytes : amount;
  }
  friend bool operator==(const Quantity&, const Quantity&) = default;
};

// Parses "<number> [unit]". `default_unit` applies to a bare number; when it is
// empty a bare number is an error (sizes must say what they count).
// Returns nullopt and sets `error` on failure.
std::optional<Quantity> parse_quantity(const std::string& text, const std::string& default_unit,
                                       std::string& error);

// Plain non-negative integer (counts: iterations, threads...). Accepts "4096",
// "4 Ki" style suffixes (Ki, Mi, Gi) for large counts.
std::optional<std::uint64_t> parse_count(const std::string& text, std::string& error);

// Human-readable byte size: "12 KiB", "3073 B", "2 MiB", "1.5 KiB" is never
// produced: non-multiples are printed in bytes so that values round-trip.
std::string format_bytes(std::uint64_t bytes);

// The unit words parse_quantity understands, for help texts.
const char* quantity_units_help();

}  // namespace dissect
