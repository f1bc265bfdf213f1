#pragma once
// Result bundles: one directory per run of one spec.
//
//   bundle.json   schema version, tool version + git revision, argv, host, the
//                 spec verbatim and expanded, device description, timestamps, status
//   points.csv    one row per completed sweep point: parameters + summary statistics
//   trace.csv     every sample: point_id, thread, seq, offset_bytes, latency, sm_id, phase
//   kernels/      generated sources (and PTX/SASS) of every kernel that ran
//   findings.json what the analyzers concluded (written after the run)
//
// Points are appended as they complete: trace rows first, then the points.csv
// row that commits them. A killed run leaves a readable bundle of the points
// whose points.csv row was written; the reader ignores trace rows of points
// that were never committed.
#include <deque>
#include <functional>
#include <future>
#include <mutex>
#include <optional>
#include <set>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <unordered_map>
#include <vector>

#include <nlohmann/json.hpp>

#include "engine/bundle/bundle_rows.hpp"
#include "engine/core/background_worker.hpp"
#include "engine/core/directory_lock.hpp"
#include "engine/device/device.hpp"
#include "engine/spec/point_params.hpp"
#include "engine/spec/spec.hpp"
#include "engine/trace/trace.hpp"

namespace dissect {

inline constexpr int kBundleSchemaVersion = 1;

class BundleWriter {
 public:
  // Creates `dir` (which must not exist or be empty) and writes bundle.json with
  // status "running".
  BundleWriter(std::string dir, nlohmann::json header);
  // The same, with the directory, the files and the header made on a worker
  // thread: a run's header (the spec re-emitted as YAML, the device
  // description) and the file system calls cost a few tenths of a millisecond
  // that overlap the device's setup and first launch instead of preceding them.
  // Only the check that `dir` is fresh is done here; what writes (storing points,
  // kernels, finish) waits for the worker, and its failure is thrown there.
  struct DeferredHeader {
    explicit DeferredHeader(std::function<nlohmann::json()> f) : make(std::move(f)) {}
    std::function<nlohmann::json()> make;
  };
  BundleWriter(std::string dir, DeferredHeader header);
  // Reopens a bundle a run left unfinished (dissect run --resume): its committed
  // points stay; trace.csv and points.csv are cut back to them (samples of a point
  // that was never committed, a torn last row), and bundle.json says "running"
  // again, with `resumption` appended to its "resumed" list. Throws
  // std::runtime_error when another process writes the bundle or its files are
  // missing.
  struct Resume {};
  BundleWriter(std::string dir, Resume, nlohmann::json resumption);  // resumption: {at, argv, device}
  ~BundleWriter();
  BundleWriter(const BundleWriter&) = delete;
  BundleWriter& operator=(const BundleWriter&) = delete;

  void append_point(const Point& point, PointTrace trace);
  // Several points in two writes: all their samples, then the rows that commit
  // them (a reader never sees a committed point without its samples).
  void append_points(std::vector<std::pair<const Point*, PointTrace>> batch);
  // From now on points are stored on the process's background worker (in the order they
  // come; prepare_points there too; the points and the traces' notes go by copy, since
  // an adaptive search's points live no longer than its round): the caller goes on
  // measuring while a batch's rows are formatted and written. When about four launches
  // wait there, the caller waits for the oldest. A store that failed is thrown by the next
  // append or by await_stored(), which waits for every batch (seal() and finish() call it;
  // so must a caller before it reads points_written()). A process killed outright
  // (SIGKILL, a second Ctrl-C) loses the launches still waiting. Call retain_traces()
  // before this. `unbounded`: the caller never waits for the queue (the points are retained
  // for an analysis anyway, so waiting saves no memory; the analysis waits instead).
  void store_in_background(bool unbounded = false);
  void await_stored();
  // Waits for the deferred header's job (DeferredHeader: it reads what the caller's
  // function refers to), and throws what it threw. Everything that writes calls it.
  void await_header();
  // Formats ahead the parts of these points' points.csv rows that do not depend on
  // their results (parameters, axes; with `traces`, one per point, the device notes
  // their params hold): a run calls it while the points' kernel runs
  // (RunSink::points_started), and storing them afterwards costs less. Optional:
  // rows of points not prepared are formatted whole when stored, and notes that
  // changed since are formatted again.
  void prepare_points(std::span<const Point* const> points, std::span<const PointTrace* const> traces = {});
  // Keeps every committed point in `into` exactly as read_bundle would return it
  // (params from the points.csv row), so a run can be analysed without reading
  // its trace back from disk. `into` is filled by finish().
  void retain_traces(TraceSet* into);
  // May be called on other threads than the one storing points (the CUDA device writes
  // kernel artifacts on threads of their own), at the same time; each artifact's files
  // are its own (named after it).
  void add_kernel(const KernelArtifact& artifact);
  // status: complete | interrupted | failed. Extra keys are merged into bundle.json.
  void finish(const std::string& status, const nlohmann::json& extra = {});
  // finish() in two halves, for a caller that leaves the disk to a worker: seal() puts the
  // retained points in place and the status in the header in memory (nothing more can be
  // stored); write_sealed() makes the files durable and writes bundle.json (until then it
  // says "running", as for a run still storing). finish() is seal() then write_sealed().
  void seal(const std::string& status, const nlohmann::json& extra = {});
  void write_sealed();
  void write_findings(const nlohmann::json& findings);

  [[nodiscard]] const std::string& dir() const { return dir_; }
  // Points stored so far (with store_in_background, after await_stored()).
  [[nodiscard]] std::size_t points_written() const { return points_written_; }
  // Ids of the points committed before a resumption (empty for a fresh bundle).
  [[nodiscard]] const std::set<std::size_t>& committed_before() const { return committed_before_; }
  [[nodiscard]] const nlohmann::json& header() const { return header_; }

 private:
  void check_fresh() const;
  void lock();
  void open_files();
  void init_header(nlohmann::json header);
  void retain_header_fields();
  void write_header(bool durable = true);
  // Writes the batch's trace.csv rows, a chunk at a time.
  void write_samples(std::span<const std::pair<const Point*, PointTrace>> batch);
  // The batch's points.csv rows (the header before the first); with `rows`, where
  // each point's row lies in the text (begin, end without the newline).
  const std::string& format_rows(std::span<const std::pair<const Point*, PointTrace>> batch,
                                 std::vector<std::pair<std::size_t, std::size_t>>* rows);
  // append_points' and prepare_points' work, where they are done (here or on the worker).
  void store_batch(std::vector<std::pair<const Point*, PointTrace>> batch);
  void prepare_rows(std::span<const Point* const> points, std::span<const std::map<std::string, std::string>* const> notes);
  // Moves the points stored since the last call into the retained set.
  void retain_pending();
  // Frees what storing the last batch used up (retired_traces_, retired_rows_).
  void release_retired();
  std::string dir_;
  std::optional<DirectoryLock> lock_;  // held for the writer's life
  nlohmann::json header_;
  int trace_fd_ = -1;
  int points_fd_ = -1;
  std::size_t points_written_ = 0;
  std::set<std::size_t> committed_before_;
  std::vector<std::string> points_columns_;
  TraceSet* retained_ = nullptr;
  std::vector<std::pair<PointTrace, std::string>> unretained_;  // stored, with their row, until finish()
  // trace.csv rows on their way out: one buffer for the writer's life, reused
  // chunk after chunk (no growing string per point, no fresh pages per batch).
  std::unique_ptr<char[]> chunk_;
  // A large batch's rows are formatted side by side on the worker pool, a segment of samples
  // each, into these buffers (reused, one per segment in flight), and written in order.
  std::vector<std::unique_ptr<char[]>> segment_buffers_;
  void write_samples_side_by_side(std::span<const std::pair<const Point*, PointTrace>> batch);
  std::unordered_map<std::size_t, PreparedRow> prepared_;  // by point id, from prepare_points until stored
  // The last batch's points.csv text. Kept (with its capacity) from batch to batch, and
  // grown and written to by prepare_points while the kernel runs: the pages of a
  // batch's rows are not first touched after it.
  std::string rows_text_;
  // What storing a batch used up (its traces, when not retained, and its prepared rows):
  // freed by the next prepare_points (while the next kernel runs), else by the next
  // append or finish(), not while a short sweep's last batch is being stored (thousands
  // of frees).
  std::vector<PointTrace> retired_traces_;
  std::vector<PreparedRow> retired_rows_;
  // store_in_background: the jobs given to the worker, oldest first (a launch gives two: its
  // rows prepared, its points stored); at most jobs_in_flight_, kJobsInFlight (about four
  // launches) unless unbounded.
  static constexpr std::size_t kJobsInFlight = 8;
  std::size_t jobs_in_flight_ = kJobsInFlight;
  bool in_background_ = false;
  std::deque<std::shared_future<void>> storing_;
  void await_oldest_store();
  // Queues a job after those before it (each waits for its predecessor, should the worker
  // ever be a thread of its own per job).
  void queue_store(std::function<void()> job);
  // The background lane of this bundle's jobs (header, stores): its own, so that they run
  // beside those of the bundle before it, which may still be storing.
  std::size_t lane_ = background::next_lane();
  std::future<void> header_written_;  // the worker of the deferred-header constructor
  std::mutex header_mutex_;           // guards header_written_: add_kernel may run on another thread
};

struct Bundle {
  std::string dir;
  nlohmann::json header;  // bundle.json
  TraceSet traces;        // committed points only
  // Damage found while reading, one line each (which file and line, which point,
  // what is missing): rows left out, points with fewer samples than points.csv
  // counts, a header that disagrees with points.csv, a run killed while
  // "running". Readers print them; nothing is dropped in silence.
  std::vector<std::string> warnings;
  // The torn last line of points.csv or trace.csv a killed run can leave (no
  // newline yet): expected, so not a warning.
  std::vector<std::string> torn_rows;
  bool abandoned = false;  // status "running" but no process holds the bundle
};

// Loads a bundle for offline analysis. Throws std::runtime_error naming the
// file when something required is missing or malformed (bundle.json with wrong
// types, no points.csv or trace.csv, a header without point_id); damage that
// leaves the rest usable goes to Bundle::warnings.
Bundle read_bundle(const std::string& dir);

// Claims a fresh bundle directory under `parent` (created when missing) for a
// spec: creates parent/name, else parent/name-2, ... with mkdir, which fails for
// an existing directory, so two runs never share one (results are never
// overwritten, concurrent runs into one --out get distinct bundles). Returns the
// created, empty directory. Throws RunError for a name that is no directory name
// (name_problem) or a parent that cannot be written, naming the system's reason.
std::string claim_bundle_dir(const std::string& parent, const std::string& name);

}  // namespace dissect
