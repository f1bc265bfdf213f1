#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <limits>
#include <charconv>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <stdexcept>

#include "engine/bundle/bundle.hpp"
#include "engine/bundle/bundle_rows.hpp"
#include "engine/core/background_worker.hpp"
#include "engine/core/csv.hpp"
#include "engine/core/directory_lock.hpp"
#include "engine/core/files.hpp"
#include "engine/core/timeline.hpp"
#include "engine/core/worker_pool.hpp"
#include "engine/spec/identifier.hpp"

namespace dissect {
namespace fs = std::filesystem;

namespace {

// Size of the buffer trace.csv rows are formatted into: large enough that a
// write() per chunk costs nothing next to the formatting, small enough to stay in
// the CPU's caches. (Formatting on threads started per batch was tried: starting
// them and their memory arenas cost more than they saved, even for 128 x 4096 samples.
// The worker pool's threads live as long as the process, and format into buffers
// allocated once: batches of many samples are formatted on them, segment by segment.)
constexpr std::size_t kChunkBytes = 1u << 20;
// Samples of one segment formatted on a worker, and batches worth it: smaller ones are
// formatted here.
constexpr std::size_t kSegmentSamples = 8192, kSideBySideSamples = 1u << 17;

// name, name-2, ... name-N: beyond this a directory is surely a script gone astray.
constexpr int kMaxBundleSuffix = 100000;

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

std::string claim_bundle_dir(const std::string& parent, const std::string& name) {
  if (const auto why = name_problem(name)) throw RunError("bundle name '" + name + "' " + *why);
  std::error_code ec;
  fs::create_directories(parent, ec);
  if (ec) throw RunError(parent + ": cannot create the output directory: " + ec.message());
  const std::string base = (fs::path(parent) / safe_name(name)).string();
  // mkdir is the claim: it fails with EEXIST for every other run's directory, so
  // concurrent runs of one spec into one --out each get their own bundle.
  for (int i = 1; i <= kMaxBundleSuffix; ++i) {
    const std::string candidate = i == 1 ? base : base + "-" + std::to_string(i);
    if (::mkdir(candidate.c_str(), 0755) == 0) return candidate;
    if (errno != EEXIST)
      throw RunError(candidate + ": cannot create the bundle directory: " + std::strerror(errno));
  }
  throw RunError(base + ": " + std::to_string(kMaxBundleSuffix) + " bundles of this name exist already");
}

BundleWriter::BundleWriter(std::string dir, nlohmann::json header) : dir_(std::move(dir)) {
  check_fresh();
  lock();
  open_files();
  init_header(std::move(header));
}

BundleWriter::BundleWriter(std::string dir, DeferredHeader header) : dir_(std::move(dir)) {
  check_fresh();
  lock();
  header_written_ = background::run(
      [this, make = std::move(header.make)] {
        timeline::mark("bundle: opening");
        open_files();
        init_header(make());
        timeline::mark("bundle: header written");
      },
      lane_);
}

BundleWriter::BundleWriter(std::string dir, Resume, nlohmann::json resumption) : dir_(std::move(dir)) {
  if (!fs::is_directory(dir_)) throw std::runtime_error(dir_ + ": not a bundle directory");
  lock_ = DirectoryLock::try_acquire(dir_);
  if (!lock_) throw std::runtime_error(dir_ + ": another process is writing this bundle");
  const fs::path root(dir_);
  header_ = nlohmann::json::parse(read_text_file((root / "bundle.json").string()));
  // points.csv: every newline-terminated row commits a point; a torn last row goes.
  const std::string points_path = (root / "points.csv").string();
  {
    std::ifstream in(points_path, std::ios::binary);
    if (!in) throw std::runtime_error(points_path + ": missing");
    std::string line;
    std::uint64_t keep = 0;
    std::size_t id_col = 0;
    while (std::getline(in, line)) {
      if (in.eof()) break;  // no newline: torn
      const auto fields = split_csv_line(line);
      if (points_columns_.empty()) {
        points_columns_ = fields;
        id_col = static_cast<std::size_t>(std::find(fields.begin(), fields.end(), "point_id") - fields.begin());
        if (id_col == fields.size()) throw std::runtime_error(points_path + ":1: header has no point_id column");
      } else {
        std::size_t id = 0;
        if (fields.size() != points_columns_.size() ||
            std::from_chars(fields[id_col].data(), fields[id_col].data() + fields[id_col].size(), id).ec != std::errc{})
          throw std::runtime_error(points_path + ": a damaged row (" + line.substr(0, 40) + "...): not resumable");
        committed_before_.insert(id);
      }
      keep += line.size() + 1;
    }
    fs::resize_file(points_path, keep);
  }
  // trace.csv: rows of committed points precede those of a batch never committed.
  const std::string trace_path = (root / "trace.csv").string();
  {
    std::ifstream in(trace_path, std::ios::binary);
    if (!in) throw std::runtime_error(trace_path + ": missing");
    std::string line;
    std::uint64_t offset = 0, keep = 0;
    bool header_line = true;
    while (std::getline(in, line)) {
      if (in.eof()) break;
      offset += line.size() + 1;
      std::size_t id = 0;
      const auto comma = line.find(',');
      if (header_line ||
          (std::from_chars(line.data(), line.data() + std::min(comma, line.size()), id).ec == std::errc{} &&
           committed_before_.count(id) != 0))
        keep = offset;
      header_line = false;
    }
    if (keep == 0) throw std::runtime_error(trace_path + ": no header: not resumable");
    fs::resize_file(trace_path, keep);
  }
  trace_fd_ = open_append(trace_path);
  points_fd_ = open_append(points_path);
  points_written_ = committed_before_.size();
  header_["status"] = "running";
  header_.erase("finished");
  header_.erase("error");
  header_.erase("fault");  // an earlier part's: the resumed run says how it ends
  if (!header_.contains("resumed") || !header_["resumed"].is_array()) header_["resumed"] = nlohmann::json::array();
  header_["resumed"].push_back(std::move(resumption));
  write_header();
}

void BundleWriter::check_fresh() const {
  std::error_code ec;
  if (!fs::exists(dir_, ec)) return;
  for (const auto& entry : fs::directory_iterator(dir_, ec))
    if (entry.path().filename() != kLockFileName || lock_ == std::nullopt)
      throw std::runtime_error(dir_ + ": bundle directory exists and is not empty (results are never overwritten)");
}

void BundleWriter::lock() {
  std::error_code ec;
  fs::create_directories(dir_, ec);
  if (ec) throw std::runtime_error(dir_ + ": cannot create bundle directory: " + ec.message());
  // Held while this process writes the bundle: a reader that finds "running" and
  // the lock free knows the run was killed (engine/core/directory_lock.hpp).
  lock_ = DirectoryLock::try_acquire(dir_);
  if (!lock_) throw std::runtime_error(dir_ + ": another process is writing this bundle");
}

void BundleWriter::open_files() {
  check_fresh();
  std::error_code ec;
  fs::create_directories(fs::path(dir_) / "kernels", ec);
  if (ec) throw std::runtime_error(dir_ + ": cannot create bundle directory: " + ec.message());
  trace_fd_ = open_append((fs::path(dir_) / "trace.csv").string());
  points_fd_ = open_append((fs::path(dir_) / "points.csv").string());
  append_all(trace_fd_, csv_row(kTraceColumns), "trace.csv");
}

void BundleWriter::init_header(nlohmann::json header) {
  header_ = std::move(header);
  header_["schema_version"] = kBundleSchemaVersion;
  header_["status"] = "running";
  header_["points_completed"] = 0;
  write_header(false);  // "running": made durable by finish()
}

void BundleWriter::await_header() {
  // Also called by add_kernel on other threads while the run stores points.
  const std::lock_guard lock(header_mutex_);
  if (header_written_.valid()) header_written_.get();
}

BundleWriter::~BundleWriter() {
  for (auto& f : storing_) f.wait();                     // the worker uses this object
  if (header_written_.valid()) header_written_.wait();  // so does the header's job
  if (trace_fd_ >= 0) ::close(trace_fd_);
  if (points_fd_ >= 0) ::close(points_fd_);
}

void BundleWriter::write_header(bool durable) {
  write_file_atomic((fs::path(dir_) / "bundle.json").string(), header_.dump(2) + "\n", durable);
}

void BundleWriter::write_samples_side_by_side(std::span<const std::pair<const Point*, PointTrace>> batch) {
  struct Segment {
    std::size_t point, begin, end;  // samples [begin, end) of batch[point]
  };
  std::vector<Segment> segments;
  for (std::size_t i = 0; i < batch.size(); ++i)
    for (std::size_t b = 0; b < batch[i].second.samples.size(); b += kSegmentSamples)
      segments.push_back({i, b, std::min(batch[i].second.samples.size(), b + kSegmentSamples)});
  const std::size_t window = std::min(segments.size(), 2 * workers::size() + 1);
  while (segment_buffers_.size() < window)
    segment_buffers_.push_back(std::make_unique_for_overwrite<char[]>(kSegmentSamples * kMaxSampleRow));
  // Segment k is formatted into buffer k % window; the rows are written in the batch's order.
  std::vector<std::shared_ptr<workers::Job<std::size_t>>> jobs(window);
  const auto start = [&](std::size_t k) {
    jobs[k % window] = workers::start<std::size_t>([&batch, seg = segments[k], buf = segment_buffers_[k % window].get()] {
      const auto& [point, trace] = batch[seg.point];
      char id[24];
      const std::string_view id_text(id, static_cast<std::size_t>(std::to_chars(id, id + sizeof id, point->id).ptr - id));
      char* p = buf;
      for (std::size_t i = seg.begin; i < seg.end; ++i) p = write_sample_row(p, id_text, trace.samples[i]);
      return static_cast<std::size_t>(p - buf);
    });
  };
  // Whatever ends this early (a write that fails), no job may still use the batch or a buffer.
  struct Settle {
    std::vector<std::shared_ptr<workers::Job<std::size_t>>>& jobs;
    ~Settle() {
      for (auto& j : jobs)
        if (j) j->cancel();
      for (auto& j : jobs) try {
          if (j) (void)j->get();
        } catch (const std::exception&) {
          // Called off, or its error lost to the one that ended the batch.
        }
    }
  } settle{jobs};
  for (std::size_t k = 0; k < window; ++k) start(k);
  for (std::size_t k = 0; k < segments.size(); ++k) {
    auto job = std::move(jobs[k % window]);
    const std::size_t used = job->get();  // formats it here if no worker has started it
    append_all(trace_fd_, std::string_view(segment_buffers_[k % window].get(), used), dir_ + "/trace.csv");
    if (k + window < segments.size()) start(k + window);
  }
}

void BundleWriter::write_samples(std::span<const std::pair<const Point*, PointTrace>> batch) {
  std::size_t samples = 0;
  for (const auto& [p, t] : batch) samples += t.samples.size();
  // With a worker or two the machine has no core to spare for it (a topology's analyses use them).
  if (samples >= kSideBySideSamples && workers::size() >= 3) {
    write_samples_side_by_side(batch);
    return;
  }
  if (!chunk_) chunk_ = std::make_unique_for_overwrite<char[]>(kChunkBytes);
  std::size_t used = 0;
  for (const auto& [p, t] : batch) {
    char id[24];
    const std::string_view id_text(id, static_cast<std::size_t>(std::to_chars(id, id + sizeof id, p->id).ptr - id));
    for (const Sample& s : t.samples) {
      if (kChunkBytes - used < kMaxSampleRow) {
        append_all(trace_fd_, std::string_view(chunk_.get(), used), dir_ + "/trace.csv");
        used = 0;
      }
      used = static_cast<std::size_t>(write_sample_row(chunk_.get() + used, id_text, s) - chunk_.get());
    }
  }
  if (used > 0) append_all(trace_fd_, std::string_view(chunk_.get(), used), dir_ + "/trace.csv");
}

void BundleWriter::prepare_points(std::span<const Point* const> points, std::span<const PointTrace* const> traces) {
  if (!in_background_) {
    std::vector<const std::map<std::string, std::string>*> notes;
    for (const PointTrace* t : traces) notes.push_back(t != nullptr ? &t->params : nullptr);
    prepare_rows(points, notes);
    return;
  }
  // The traces are the device's, filled while the job waits: their notes go by copy. Called
  // while a kernel runs: a full queue is waited for here, but a failed store is left for
  // the next append to throw (not from the middle of a launch).
  if (storing_.size() >= jobs_in_flight_) storing_.front().wait();
  struct Job {
    std::vector<Point> points;
    std::vector<std::optional<std::map<std::string, std::string>>> notes;
  };
  auto job = std::make_shared<Job>();
  for (const Point* p : points) job->points.push_back(*p);
  for (const PointTrace* t : traces) job->notes.push_back(t != nullptr ? std::optional(t->params) : std::nullopt);
  queue_store([this, job] {
    std::vector<const Point*> copies;
    for (const Point& p : job->points) copies.push_back(&p);
    std::vector<const std::map<std::string, std::string>*> notes;
    for (const auto& n : job->notes) notes.push_back(n ? &*n : nullptr);
    prepare_rows(copies, notes);
  });
}

void BundleWriter::prepare_rows(std::span<const Point* const> points,
                                std::span<const std::map<std::string, std::string>* const> notes) {
  release_retired();
  std::size_t bytes = 0;
  for (std::size_t i = 0; i < points.size(); ++i) {
    PreparedRow row = prepare_row(*points[i]);
    if (i < notes.size() && notes[i] != nullptr) prepare_notes(row, *notes[i]);
    // The row's other fields: status and the numbers (kMaxSampleRow holds 7 of them).
    bytes += row.params_csv.size() + row.axes_csv.size() + row.notes_csv.size() + 3 * kMaxSampleRow;
    prepared_.insert_or_assign(points[i]->id, std::move(row));
  }
  if (points_columns_.empty()) bytes += 4096;  // the header comes with the first rows
  if (rows_text_.capacity() < bytes) {
    rows_text_.resize(bytes);  // writes every page: the first touch happens now
    rows_text_.clear();
  }
}

void BundleWriter::release_retired() {
  retired_traces_.clear();
  retired_rows_.clear();
}

const std::string& BundleWriter::format_rows(std::span<const std::pair<const Point*, PointTrace>> batch,
                                             std::vector<std::pair<std::size_t, std::size_t>>* rows) {
  std::string& out = rows_text_;
  out.clear();
  retired_rows_.reserve(retired_rows_.size() + batch.size());
  for (std::size_t i = 0; i < batch.size(); ++i) {
    const auto& [point, trace] = batch[i];
    // What was prepared ahead (prepare_points) is used once; the rest is prepared now.
    if (auto it = prepared_.find(point->id); it != prepared_.end()) {
      retired_rows_.push_back(std::move(it->second));
      prepared_.erase(it);
    } else {
      retired_rows_.push_back(prepare_row(*point));
    }
    const PreparedRow& parts = retired_rows_.back();
    if (points_columns_.empty()) {  // the header comes with the first row
      points_columns_ = points_columns(parts);
      append_csv_row(out, points_columns_);
    }
    const std::size_t begin = out.size();
    append_point_row(*point, trace, parts, points_columns_, out, nullptr);
    if (rows != nullptr) rows->emplace_back(begin, out.size() - 1);  // without the '\n'
  }
  return out;
}

void BundleWriter::retain_traces(TraceSet* into) {
  retained_ = into;
  if (into == nullptr) return;
  // The set-wide fields read_bundle takes from the bundle's directory and header
  // (the header's when it is there: finish() sets them again).
  into->source = dir_;
  const std::lock_guard lock(header_mutex_);
  if (!header_written_.valid()) retain_header_fields();
}

void BundleWriter::retain_header_fields() {
  if (retained_ != nullptr && header_.contains("device") && header_["device"].contains("sm_clock_khz") &&
      header_["device"]["sm_clock_khz"].is_number())
    retained_->sm_clock_khz = header_["device"]["sm_clock_khz"].get<double>();
}

void BundleWriter::retain_pending() {
  // What read_bundle makes of each row: every column is a param. The numbers were
  // written in their shortest exact form, so they read back the same.
  if (retained_ != nullptr)
    for (auto& [trace, row] : unretained_) {
      const std::vector<std::string> fields = split_csv_line(row);
      trace.params.clear();
      for (std::size_t c = 0; c < fields.size() && c < points_columns_.size(); ++c)
        trace.params.emplace(points_columns_[c], fields[c]);
      retained_->points.push_back(std::move(trace));
    }
  unretained_.clear();
}

void BundleWriter::append_point(const Point& point, PointTrace trace) {
  std::vector<std::pair<const Point*, PointTrace>> one;
  one.emplace_back(&point, std::move(trace));
  append_points(std::move(one));
}

void BundleWriter::store_in_background(bool unbounded) {
  in_background_ = true;
  jobs_in_flight_ = unbounded ? std::numeric_limits<std::size_t>::max() : kJobsInFlight;
}

void BundleWriter::queue_store(std::function<void()> job) {
  std::shared_future<void> before = storing_.empty() ? std::shared_future<void>() : storing_.back();
  storing_.push_back(background::run(
                         [before, job = std::move(job)] {
                           if (before.valid()) before.wait();
                           job();
                         },
                         lane_)
                         .share());
}

void BundleWriter::await_oldest_store() {
  std::shared_future<void> f = std::move(storing_.front());
  storing_.pop_front();
  f.get();  // rethrows what the store threw
}

void BundleWriter::await_stored() {
  // Every job is waited for, also after one failed: none may outlive what it uses.
  std::exception_ptr first;
  while (!storing_.empty()) try {
      await_oldest_store();
    } catch (...) {
      if (!first) first = std::current_exception();
    }
  if (first) std::rethrow_exception(first);
}

void BundleWriter::append_points(std::vector<std::pair<const Point*, PointTrace>> batch) {
  if (!in_background_) {
    store_batch(std::move(batch));
    return;
  }
  while (!storing_.empty() &&
         (storing_.size() >= jobs_in_flight_ ||
          storing_.front().wait_for(std::chrono::seconds(0)) == std::future_status::ready))
    await_oldest_store();  // a failed store is thrown here, at the next batch
  struct Job {
    std::vector<Point> points;
    std::vector<std::pair<const Point*, PointTrace>> batch;
  };
  auto job = std::make_shared<Job>();
  job->points.reserve(batch.size());  // no reallocation: the batch points into it
  for (auto& [point, trace] : batch) {
    job->points.push_back(*point);
    job->batch.emplace_back(&job->points.back(), std::move(trace));
  }
  queue_store([this, job] { store_batch(std::move(job->batch)); });
}

void BundleWriter::store_batch(std::vector<std::pair<const Point*, PointTrace>> batch) {
  await_header();
  // What the batch before left, unless prepare_points freed it while this batch's kernel
  // ran: one batch's worth at most (a sweep of fine-grained points point by point must
  // not keep every sample until finish()).
  release_retired();
  timeline::mark("bundle: append");
  // 1. the samples (in windows: a batch of fine-grained points can hold millions),
  // 2. the rows that commit them, in one write.
  write_samples(batch);
  timeline::mark("bundle: samples written");
  std::vector<std::pair<std::size_t, std::size_t>> rows;
  const std::string& text = format_rows(batch, retained_ != nullptr ? &rows : nullptr);
  timeline::mark("bundle: rows formatted");
  append_all(points_fd_, text, dir_ + "/points.csv");
  timeline::mark("bundle: rows written");
  points_written_ += batch.size();
  // The retained copy is made from the rows when the run is finished, not here:
  // storing points is on the path of a short sweep's wall time, analysis is not.
  if (retained_ != nullptr)
    for (std::size_t i = 0; i < batch.size(); ++i)
      unretained_.emplace_back(std::move(batch[i].second), text.substr(rows[i].first, rows[i].second - rows[i].first));
  else
    for (auto& [point, trace] : batch) retired_traces_.push_back(std::move(trace));
}

void BundleWriter::add_kernel(const KernelArtifact& a) {
  await_header();
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
  seal(status, extra);
  write_sealed();
}

void BundleWriter::seal(const std::string& status, const nlohmann::json& extra) {
  await_stored();
  await_header();
  retain_header_fields();
  retain_pending();
  header_["status"] = status;
  header_["points_completed"] = points_written_;
  header_["finished"] = utc_timestamp();
  if (extra.is_object())
    for (auto it = extra.begin(); it != extra.end(); ++it) header_[it.key()] = it.value();
}

void BundleWriter::write_sealed() {
  ::fsync(trace_fd_);
  ::fsync(points_fd_);
  write_header();
  release_retired();
}

void BundleWriter::write_findings(const nlohmann::json& findings) {
  await_header();
  write_file_atomic((fs::path(dir_) / "findings.json").string(), findings.dump(2) + "\n");
}

}  // namespace dissect
