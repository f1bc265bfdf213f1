#pragma once
// Small file-system helpers shared by bundles and the compile cache.
#include <stdexcept>
#include <string>
#include <string_view>

namespace dissect {

// Reads a whole file; throws std::runtime_error naming the file on failure.
std::string read_text_file(const std::string& path);
// Thrown by read_text_file_bounded for a file that holds more than its limit.
class FileTooLarge : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};
// Reads a file of at most `max_bytes`: never more than max_bytes + 1 are read, so
// a device (/dev/zero) or a huge file costs nothing before it is refused (FileTooLarge).
// Throws std::runtime_error naming the file and the cause when it cannot be read.
std::string read_text_file_bounded(const std::string& path, std::size_t max_bytes);
// Writes `content` to a temporary file in the same directory, then renames it
// over `path`: readers see the old or the new file, never half of one, and
// concurrent writers of the same content cannot corrupt it. `durable` also
// fsyncs (survives power loss); proofs that can be regenerated skip it, since
// every fsync costs milliseconds of a run's wall time.
void write_file_atomic(const std::string& path, const std::string& content, bool durable = true);
// Appends `content` with one write() loop to an O_APPEND file descriptor.
void append_all(int fd, std::string_view content, const std::string& what);
// ISO-8601 UTC timestamp, e.g. 2026-11-22T10:11:12Z.
std::string utc_timestamp();
std::string compact_timestamp();  // 20261122-101112
std::string host_name();

}  // namespace dissect
