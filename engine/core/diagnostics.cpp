#include "engine/core/diagnostics.hpp"

#include <algorithm>
#include <numeric>
#include <tuple>

namespace dissect {

std::string Location::str() const {
  std::string s = file.empty() ? std::string("<input>") : file;
  if (line > 0) {
    s += ":" + std::to_string(line);
    if (column > 0) s += ":" + std::to_string(column);
  }
  return s;
}

void Diagnostics::error(Location where, std::string message) {
  errors_.push_back({std::move(where), std::move(message)});
}

std::string Diagnostics::str() const {
  // In file order, as a compiler would print them; stable for equal positions.
  // Files keep the order in which they first appear.
  std::vector<std::string> files;
  for (const auto& e : errors_)
    if (std::find(files.begin(), files.end(), e.where.file) == files.end()) files.push_back(e.where.file);
  auto rank = [&](const Diagnostic& d) {
    return std::make_tuple(std::find(files.begin(), files.end(), d.where.file) - files.begin(), d.where.line,
                           d.where.column);
  };
  std::vector<Diagnostic> sorted = errors_;
  std::stable_sort(sorted.begin(), sorted.end(),
                   [&](const Diagnostic& a, const Diagnostic& b) { return rank(a) < rank(b); });
  std::string out;
  for (const auto& e : sorted) {
    out += e.str();
    out += '\n';
  }
  return out;
}

void Diagnostics::merge(const Diagnostics& other) {
  errors_.insert(errors_.end(), other.errors_.begin(), other.errors_.end());
}

SpecError::SpecError(Diagnostics diagnostics)
    : std::runtime_error(diagnostics.str()), diagnostics_(std::move(diagnostics)) {}

static Diagnostics single(Location where, const std::string& message) {
  Diagnostics d;
  d.error(std::move(where), message);
  return d;
}

SpecError::SpecError(Location where, const std::string& message)
    : SpecError(single(std::move(where), message)) {}

std::size_t edit_distance(const std::string& a, const std::string& b) {
  std::vector<std::size_t> prev(b.size() + 1), cur(b.size() + 1);
  std::iota(prev.begin(), prev.end(), std::size_t{0});
  for (std::size_t i = 1; i <= a.size(); ++i) {
    cur[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t subst = prev[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1);
      cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, subst});
    }
    std::swap(prev, cur);
  }
  return prev[b.size()];
}

std::string closest_match(const std::string& word, const std::vector<std::string>& candidates) {
  std::string best;
  std::size_t best_distance = std::string::npos;
  for (const auto& c : candidates) {
    const std::size_t d = edit_distance(word, c);
    if (d < best_distance) {
      best_distance = d;
      best = c;
    }
  }
  // A typo changes a few characters; beyond a third of the word it is a different word.
  const std::size_t limit = std::max<std::size_t>(2, word.size() / 3);
  return best_distance <= limit ? best : std::string{};
}

}  // namespace dissect
