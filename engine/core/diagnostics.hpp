#pragma once
// Diagnostics: every user-facing error names where it comes from.
// Spec errors carry file:line:col; run errors carry spec, sweep point and call.
#include <stdexcept>
#include <string>
#include <vector>

namespace dissect {

// A position in a spec file (1-based line and column, as editors show them).
// Values that did not come from a file (defaults, --set) say so in `file`.
struct Location {
  std::string file;
  int line = 0;
  int column = 0;

  [[nodiscard]] std::string str() const;  // "file:line:col" (or "file" when line is 0)
  [[nodiscard]] bool known() const { return line > 0; }
};

struct Diagnostic {
  Location where;
  std::string message;
  [[nodiscard]] std::string str() const { return where.str() + ": " + message; }
};

// Collects every error of one validation pass, so a user sees all of them at once.
class Diagnostics {
 public:
  void error(Location where, std::string message);
  [[nodiscard]] bool empty() const { return errors_.empty(); }
  [[nodiscard]] std::size_t size() const { return errors_.size(); }
  [[nodiscard]] const std::vector<Diagnostic>& errors() const { return errors_; }
  [[nodiscard]] std::string str() const;  // one error per line
  void merge(const Diagnostics& other);

 private:
  std::vector<Diagnostic> errors_;
};

// Thrown when a spec (or device profile, or trace file) is invalid. The CLI
// prints every diagnostic and exits with status 2.
class SpecError : public std::runtime_error {
 public:
  explicit SpecError(Diagnostics diagnostics);
  SpecError(Location where, const std::string& message);
  [[nodiscard]] const Diagnostics& diagnostics() const { return diagnostics_; }

 private:
  Diagnostics diagnostics_;
};

// Thrown when a run fails: names the spec, the sweep point and the call.
class RunError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Thrown by a device that cannot run what a spec asks for at all (a load path a
// simulated profile does not describe, a path the GPU generation lacks). Runs
// record it as status "unsupported"; it is a property of the device, not a failure.
class UnsupportedError : public RunError {
 public:
  using RunError::RunError;
};

// "Did you mean" helper: the closest candidate by edit distance, or "" when
// nothing is close enough to be a plausible typo.
std::string closest_match(const std::string& word, const std::vector<std::string>& candidates);
std::size_t edit_distance(const std::string& a, const std::string& b);

}  // namespace dissect
