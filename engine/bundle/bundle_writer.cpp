#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <stdexcept>

#include "engine/bundle/bundle.hpp"
#include "engine/core/csv.hpp"
#include "engine/core/files.hpp"

namespace dissect {
namespace fs = std::filesystem;

namespace {

const std::vector<std::string> kTraceColumns{"point_id", "thread", "seq", "offset_bytes", "latency", "sm_id", "phase"};
const std::vector<std::string> kResultColumns{
    "accesses_per_pass", "discard_passes", "sm_id", "timer_overhead_cycles", "kernel_ms", "sm_clock_khz",
    "samples", "lat_min", "lat_p5", "lat_median", "lat_mean", "lat_p95", "lat_max", "axes", "device_notes"};

int open_append(const std::string& path) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (fd < 0) throw std::runtime_error(path + ": cannot open for writing: " + std::strerror(errno));
  return fd;
}

std::string safe_name(const std::string& name) {
  std::string out;
  for (char c : name) out += (std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == '.') ? c : '_';
  return out.empty() ? "kernel" : out;
}

}  // namespace

std::string fresh_bundle_dir(const std::string& parent, const std::string& name) {
  const std::string base = (fs::path(parent) / safe_name(name)).string();
  if (!fs::exists(base)) return base;
  for (int i = 2;; ++i) {
    const std::string candidate = base + "-" + std::to_string(i);
    if (!fs::exists(candidate)) return candidate;
  }
}

BundleWriter::BundleWriter(std::string dir, nlohmann::json header) : dir_(std::move(dir)), header_(std::move(header)) {
  std::error_code ec;
  if (fs::exists(dir_) && !fs::is_empty(dir_, ec))
    throw std::runtime_error(dir_ + ": bundle directory exists and is not empty (results are never overwritten)");
  fs::create_directories(fs::path(dir_) / "kernels", ec);
  if (ec) throw std::runtime_error(dir_ + ": cannot create bundle directory: " + ec.message());
  header_["schema_version"] = kBundleSchemaVersion;
  header_["status"] = "running";
  header_["points_completed"] = 0;
  write_header(false);  // "running": made durable by finish()
  trace_fd_ = open_append((fs::path(dir_) / "trace.csv").string());
  points_fd_ = open_append((fs::path(dir_) / "points.csv").string());
  append_all(trace_fd_, csv_row(kTraceColumns), "trace.csv");
}

BundleWriter::~BundleWriter() {
  if (trace_fd_ >= 0) ::close(trace_fd_);
  if (points_fd_ >= 0) ::close(points_fd_);
}

void BundleWriter::write_header(bool durable) {
  write_file_atomic((fs::path(dir_) / "bundle.json").string(), header_.dump(2) + "\n", durable);
}

void BundleWriter::format_samples(const Point& point, const PointTrace& trace, std::string& rows) const {
  rows.reserve(rows.size() + trace.samples.size() * 40);
  const std::string pid = std::to_string(point.id);
  for (const auto& s : trace.samples) {
    rows += pid;
    rows += ',';
    rows += std::to_string(s.thread);
    rows += ',';
    rows += std::to_string(s.seq);
    rows += ',';
    rows += std::to_string(s.offset_bytes);
    rows += ',';
    rows += format_number(s.latency);
    rows += ',';
    rows += std::to_string(s.sm_id);
    rows += ',';
    rows += std::to_string(s.phase);
    rows += '\n';
  }
}

std::map<std::string, std::string> BundleWriter::format_point_row(const Point& point, const PointTrace& trace,
                                                                 std::string& out) {
  const auto params = point_params(point);
  if (points_columns_.empty()) {  // the header comes with the first row
    points_columns_ = {"point_id", "status"};
    for (const auto& [k, v] : params) points_columns_.push_back(k);
    points_columns_.insert(points_columns_.end(), kResultColumns.begin(), kResultColumns.end());
    out += csv_row(points_columns_);
  }
  std::vector<double> lat;
  for (const Sample* s : trace.measured_samples()) lat.push_back(s->latency);
  const LatencySummary sum = summarize(std::move(lat));
  std::string axes;
  for (const auto& [f, v] : point.axis_values) axes += (axes.empty() ? "" : "; ") + f + "=" + v;
  // How the device ran the point (launch mode, shared memory, ...): trace params that are
  // not point parameters, as "key=value; ...".
  std::string notes;
  for (const auto& [k, v] : trace.params)
    if (std::none_of(params.begin(), params.end(), [&](const auto& kv) { return kv.first == k; }))
      notes += (notes.empty() ? "" : "; ") + k + "=" + v;
  std::vector<std::string> row{std::to_string(point.id), trace.status};
  for (const auto& [k, v] : params) row.push_back(v);
  for (const std::string& v :
       {std::to_string(trace.accesses_per_pass), std::to_string(trace.discard_passes), std::to_string(trace.sm_id),
        format_number(trace.timer_overhead_cycles), format_number(trace.kernel_ms), format_number(trace.sm_clock_khz),
        std::to_string(sum.count), format_number(sum.min), format_number(sum.p5), format_number(sum.median),
        format_number(sum.mean), format_number(sum.p95), format_number(sum.max), axes, notes})
    row.push_back(v);
  out += csv_row(row);
  std::map<std::string, std::string> by_column;
  if (retained_ != nullptr)
    for (std::size_t i = 0; i < row.size() && i < points_columns_.size(); ++i) by_column[points_columns_[i]] = row[i];
  return by_column;
}

void BundleWriter::retain_traces(TraceSet* into) {
  retained_ = into;
  if (into == nullptr) return;
  // The set-wide fields read_bundle takes from the bundle's directory and header.
  into->source = dir_;
  if (header_.contains("device") && header_["device"].contains("sm_clock_khz") &&
      header_["device"]["sm_clock_khz"].is_number())
    into->sm_clock_khz = header_["device"]["sm_clock_khz"].get<double>();
}

void BundleWriter::retain(PointTrace trace, std::map<std::string, std::string> row) {
  // What read_bundle makes of the row: every column is a param. The numbers
  // were written in their shortest exact form, so they read back the same.
  trace.params = std::move(row);
  retained_->points.push_back(std::move(trace));
}

void BundleWriter::append_point(const Point& point, PointTrace trace) {
  // 1. the samples, 2. the row that commits them
  std::string rows;
  format_samples(point, trace, rows);
  append_all(trace_fd_, rows, dir_ + "/trace.csv");
  std::string row;
  auto by_column = format_point_row(point, trace, row);
  append_all(points_fd_, row, dir_ + "/points.csv");
  ++points_written_;
  if (retained_ != nullptr) retain(std::move(trace), std::move(by_column));
}

void BundleWriter::append_points(std::vector<std::pair<const Point*, PointTrace>> batch) {
  // Samples go out in chunks of a few MiB (a batch of fine-grained points can
  // hold millions); the commit rows follow in one write.
  constexpr std::size_t kChunk = 8u << 20;
  std::string rows, commits;
  for (const auto& [p, t] : batch) {
    format_samples(*p, t, rows);
    if (rows.size() >= kChunk) append_all(trace_fd_, rows, dir_ + "/trace.csv"), rows.clear();
  }
  append_all(trace_fd_, rows, dir_ + "/trace.csv");
  std::vector<std::map<std::string, std::string>> by_column;
  for (const auto& [p, t] : batch) by_column.push_back(format_point_row(*p, t, commits));
  append_all(points_fd_, commits, dir_ + "/points.csv");
  points_written_ += batch.size();
  if (retained_ != nullptr)
    for (std::size_t i = 0; i < batch.size(); ++i) retain(std::move(batch[i].second), std::move(by_column[i]));
}

void BundleWriter::add_kernel(const KernelArtifact& a) {
  const fs::path k = fs::path(dir_) / "kernels";
  const std::string stem = safe_name(a.name);
  if (fs::exists(k / (stem + ".cu"))) return;  // same kernel, already kept
  // Kernel proofs can be regenerated from the spec: atomic, but not fsynced.
  write_file_atomic((k / (stem + ".cu")).string(), a.source, false);
  if (!a.ptx.empty()) write_file_atomic((k / (stem + ".ptx")).string(), a.ptx, false);
  if (!a.sass.empty()) write_file_atomic((k / (stem + ".sass")).string(), a.sass, false);
  if (!a.log.empty()) write_file_atomic((k / (stem + ".log")).string(), a.log, false);
  if (!a.meta.is_null()) write_file_atomic((k / (stem + ".json")).string(), a.meta.dump(2) + "\n", false);
}

void BundleWriter::finish(const std::string& status, const nlohmann::json& extra) {
  header_["status"] = status;
  header_["points_completed"] = points_written_;
  header_["finished"] = utc_timestamp();
  if (extra.is_object())
    for (auto it = extra.begin(); it != extra.end(); ++it) header_[it.key()] = it.value();
  ::fsync(trace_fd_);
  ::fsync(points_fd_);
  write_header();
}

void BundleWriter::write_findings(const nlohmann::json& findings) {
  write_file_atomic((fs::path(dir_) / "findings.json").string(), findings.dump(2) + "\n");
}

}  // namespace dissect
