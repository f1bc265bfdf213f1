#include "engine/spec/units.hpp"

#include <array>
#include <cctype>
#include <charconv>
#include <limits>
#include <utility>

namespace dissect {
namespace {

// Wide enough for (digits * 10^9 * GiB) without overflow.
__extension__ typedef unsigned __int128 u128;

std::string trim(const std::string& s) {
  std::size_t b = 0, e = s.size();
  while (b < e && std::isspace(static_cast<unsigned char>(s[b]))) ++b;
  while (e > b && std::isspace(static_cast<unsigned char>(s[e - 1]))) --e;
  return s.substr(b, e - b);
}

struct UnitWord {
  const char* word;
  std::uint64_t factor;
  QuantityUnit unit;
};

constexpr std::array<UnitWord, 19> kUnits{{
    {"B", 1, QuantityUnit::bytes},
    {"byte", 1, QuantityUnit::bytes},
    {"bytes", 1, QuantityUnit::bytes},
    {"KiB", 1ull << 10, QuantityUnit::bytes},
    {"KB", 1ull << 10, QuantityUnit::bytes},
    {"K", 1ull << 10, QuantityUnit::bytes},
    {"MiB", 1ull << 20, QuantityUnit::bytes},
    {"MB", 1ull << 20, QuantityUnit::bytes},
    {"M", 1ull << 20, QuantityUnit::bytes},
    {"GiB", 1ull << 30, QuantityUnit::bytes},
    {"GB", 1ull << 30, QuantityUnit::bytes},
    {"G", 1ull << 30, QuantityUnit::bytes},
    {"el", 1, QuantityUnit::elements},
    {"elem", 1, QuantityUnit::elements},
    {"elems", 1, QuantityUnit::elements},
    {"element", 1, QuantityUnit::elements},
    {"elements", 1, QuantityUnit::elements},
    {"Ki el", 1ull << 10, QuantityUnit::elements},
    {"Mi el", 1ull << 20, QuantityUnit::elements},
}};

const UnitWord* find_unit(const std::string& word) {
  for (const auto& u : kUnits)
    if (word == u.word) return &u;
  return nullptr;
}

// Splits "12.5KiB" into ("12.5", "KiB").
std::pair<std::string, std::string> split_number(const std::string& text) {
  std::size_t i = 0;
  while (i < text.size() && (std::isdigit(static_cast<unsigned char>(text[i])) || text[i] == '.' ||
                             text[i] == '-' || text[i] == '+'))
    ++i;
  return {text.substr(0, i), trim(text.substr(i))};
}

// Parses a decimal with at most a few fractional digits exactly:
// "1.5" * 1024 must give 1536, not 1535.999.
bool scaled_value(const std::string& number, std::uint64_t factor, std::uint64_t& out, std::string& error) {
  if (number.empty()) {
    error = "expected a number";
    return false;
  }
  if (number[0] == '-') {
    error = "must not be negative";
    return false;
  }
  std::string digits = number[0] == '+' ? number.substr(1) : number;
  const auto dot = digits.find('.');
  std::string whole = dot == std::string::npos ? digits : digits.substr(0, dot);
  std::string frac = dot == std::string::npos ? "" : digits.substr(dot + 1);
  if (whole.empty() && frac.empty()) {
    error = "expected a number";
    return false;
  }
  for (char c : whole + frac)
    if (!std::isdigit(static_cast<unsigned char>(c))) {
      error = "'" + number + "' is not a number";
      return false;
    }
  if (frac.size() > 9) {
    error = "too many decimal places";
    return false;
  }
  u128 w = 0;
  for (char c : whole) {
    w = w * 10 + static_cast<unsigned>(c - '0');
    if (w > std::numeric_limits<std::uint64_t>::max()) {
      error = "number too large";
      return false;
    }
  }
  u128 f = 0, denom = 1;
  for (char c : frac) {
    f = f * 10 + static_cast<unsigned>(c - '0');
    denom *= 10;
  }
  const u128 total_num = (w * denom + f) * factor;
  if (total_num % denom != 0) {
    error = "'" + number + "' does not give a whole number of bytes or elements";
    return false;
  }
  const u128 total = total_num / denom;
  if (total > std::numeric_limits<std::uint64_t>::max()) {
    error = "number too large";
    return false;
  }
  out = static_cast<std::uint64_t>(total);
  return true;
}

}  // namespace

std::optional<Quantity> parse_quantity(const std::string& raw, const std::string& default_unit,
                                       std::string& error) {
  const std::string text = trim(raw);
  auto [number, unit_word] = split_number(text);
  if (unit_word.empty()) unit_word = default_unit;
  if (number.empty()) {
    error = "'" + text + "' is not a quantity (expected e.g. '16 KiB', '128 B' or '3073 elements')";
    return std::nullopt;
  }
  if (unit_word.empty()) {
    error = "'" + text + "' needs a unit (" + std::string(quantity_units_help()) + ")";
    return std::nullopt;
  }
  const UnitWord* unit = find_unit(unit_word);
  if (unit == nullptr) {
    error = "unknown unit '" + unit_word + "' (" + std::string(quantity_units_help()) + ")";
    return std::nullopt;
  }
  Quantity q;
  q.unit = unit->unit;
  if (!scaled_value(number, unit->factor, q.amount, error)) return std::nullopt;
  return q;
}

std::optional<std::uint64_t> parse_count(const std::string& raw, std::string& error) {
  const std::string text = trim(raw);
  auto [number, suffix] = split_number(text);
  std::uint64_t factor = 1;
  if (suffix == "Ki" || suffix == "K") factor = 1ull << 10;
  else if (suffix == "Mi" || suffix == "M") factor = 1ull << 20;
  else if (suffix == "Gi" || suffix == "G") factor = 1ull << 30;
  else if (!suffix.empty()) {
    error = "'" + text + "' is not a whole number";
    return std::nullopt;
  }
  if (number.find('.') != std::string::npos && factor == 1) {
    error = "'" + text + "' is not a whole number";
    return std::nullopt;
  }
  std::uint64_t value = 0;
  if (!scaled_value(number, factor, value, error)) return std::nullopt;
  return value;
}

std::string format_bytes(std::uint64_t bytes) {
  if (bytes != 0 && bytes % (1ull << 30) == 0) return std::to_string(bytes >> 30) + " GiB";
  if (bytes != 0 && bytes % (1ull << 20) == 0) return std::to_string(bytes >> 20) + " MiB";
  if (bytes != 0 && bytes % (1ull << 10) == 0) return std::to_string(bytes >> 10) + " KiB";
  return std::to_string(bytes) + " B";
}

const char* quantity_units_help() { return "B, KiB, MiB, GiB or elements"; }

}  // namespace dissect
