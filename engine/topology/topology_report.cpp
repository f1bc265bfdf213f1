#include "engine/topology/topology_report.hpp"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <memory>
#include <stdexcept>
#include <system_error>
#include <utility>

#include "engine/core/directory_lock.hpp"
#include "engine/core/timeline.hpp"
#include "engine/core/worker_pool.hpp"
#include "engine/report/experiment_data.hpp"
#include "engine/report/report_format.hpp"
#include "engine/topology/topology_table.hpp"

namespace dissect {
namespace fs = std::filesystem;
using json = nlohmann::json;

namespace {

report::ReportTable as_report_table(const TopologyTable& t, std::string note = {}) {
  return report::ReportTable{t.title, t.columns, t.rows, std::move(note)};
}

json read_topology_json(const std::string& dir) {
  const fs::path p = fs::path(dir) / "topology.json";
  std::ifstream in(p);
  if (!in) throw std::runtime_error(p.string() + ": cannot be opened");
  try {
    return json::parse(in);
  } catch (const json::exception& e) {
    throw std::runtime_error(p.string() + ": not valid JSON (" + e.what() + ")");
  }
}

}  // namespace

bool is_topology_dir(const std::string& dir) {
  std::error_code ec;
  return fs::is_regular_file(fs::path(dir) / "topology.json", ec);
}

namespace {

// Parts made at once while a topology measures: enough to keep up with the steps (a part
// is a gnuplot or a few), few enough to leave the workers to the analyses that later steps
// wait for: none on a pool of fewer than four workers (a part would hold up the analyses
// queued behind it), where the parts wait for the table.
std::size_t part_lanes() { return std::min<std::size_t>(2, workers::size() / 4); }

bool same_dir(const std::string& a, const std::string& b) {
  return fs::path(a).lexically_normal() == fs::path(b).lexically_normal();
}

}  // namespace

TopologyReportPreload::TopologyReportPreload(std::string topology_dir, report::ReportOptions options)
    : dir_(std::move(topology_dir)), options_(std::move(options)) {
  if (options_.render && !options_.probed_gnuplot)
    probe_ = workers::start<report::Gnuplot>([requested = options_.gnuplot] { return report::find_gnuplot(requested); });
}

TopologyReportPreload::~TopologyReportPreload() {
  // Untaken parts, queued or handed to the pool but not begun, are called off (a running one
  // is not); then the lanes are waited for: their parts use this object.
  for (auto& [bundle, started] : jobs_) {
    started.part->cancel();
    started.data->cancel();
  }
  std::unique_lock lock(lanes_->mutex);
  for (auto& job : lanes_->waiting) job->cancel();
  lanes_->waiting.clear();
  lanes_->idle.wait(lock, [this] { return lanes_->busy == 0; });
}

bool TopologyReportPreload::claim_slug(const std::string& slug) {
  const std::lock_guard lock(slugs_mutex_);
  return slugs_.insert(slug).second;
}

report::Gnuplot TopologyReportPreload::gnuplot() {
  const std::lock_guard lock(gnuplot_mutex_);
  if (!gnuplot_) {
    try {
      gnuplot_ = probe_ ? probe_->get() : report::report_gnuplot(options_);
    } catch (const std::exception& e) {  // once: the probe's result can be taken only once
      gnuplot_ = report::Gnuplot{};
      gnuplot_->message = std::string("gnuplot could not be looked for: ") + e.what();
    }
  }
  return *gnuplot_;
}

void TopologyReportPreload::start(const std::string& bundle, std::shared_ptr<AnalysedBundle> analysed) {
  if (jobs_.count(bundle) != 0) return;
  std::string path = (fs::path(dir_) / bundle).string();
  std::shared_ptr<workers::Job<report::ExperimentData>> data;
  if (analysed) {
    // Converting what is in memory costs a pass over the samples; parsing trace.csv again
    // (hundreds of MB for a TLB step) would cost several. Soon, not behind the analyses
    // queued before it: the step's points are held until it has run.
    analysed->bundle.dir = path;  // as load_experiment names it
    data = workers::start<report::ExperimentData>(
        [analysed = std::move(analysed), limits = options_.limits]() mutable {
          report::ExperimentData d = report::experiment_from_bundle(analysed->bundle, analysed->findings_file, limits);
          analysed.reset();  // the points go now, not when the job does
          return d;
        },
        workers::Priority::soon);
  } else {
    data = workers::start<report::ExperimentData>(
        [path = std::move(path), limits = options_.limits] { return report::load_experiment(path, limits); });
  }
  // The part, once the data is in, in its turn (launch); a failure to write it is left to
  // the report, which makes the part again and says what went wrong.
  auto part = std::make_shared<PartJob>([this, data] {
    Made made{data->get(), std::nullopt};
    const std::string slug = report::file_slug(made.data.name());
    if (!claim_slug(slug)) return made;
    try {
      made.part = report::write_experiment_part(made.data, gnuplot(), options_, slug);
    } catch (const std::exception&) {
      made.part.reset();
    }
    return made;
  });
  jobs_[bundle] = Started{data, part};
  launch(lanes_, {part}, false);
}

void TopologyReportPreload::launch(const std::shared_ptr<Lanes>& lanes, std::vector<std::shared_ptr<PartJob>> jobs,
                                   bool lane_freed) {
  std::vector<std::shared_ptr<PartJob>> now;
  {
    const std::lock_guard lock(lanes->mutex);
    if (lane_freed) --lanes->busy;
    for (auto& j : jobs) lanes->waiting.push_back(std::move(j));
    while (!lanes->waiting.empty() && (lanes->hurry || lanes->busy < part_lanes())) {
      now.push_back(std::move(lanes->waiting.front()));
      lanes->waiting.pop_front();
      ++lanes->busy;
    }
    if (lanes->busy == 0) lanes->idle.notify_all();
  }
  // Outside the lock: a pool that has no thread left runs the task on one of its own.
  for (auto& job : now) {
    auto task = [lanes, job] {
      job->run();  // nothing where the report took it up first
      launch(lanes, {}, true);
    };
    try {
      (void)workers::run(task, workers::Priority::normal);
    } catch (const std::system_error&) {
      task();  // no thread to be had at all: here
    }
  }
}

std::shared_ptr<workers::Job<TopologyReportPreload::Made>> TopologyReportPreload::take(const std::string& bundle,
                                                                                      bool with_part) {
  const auto it = jobs_.find(bundle);
  if (it == jobs_.end()) return nullptr;
  Started started = std::move(it->second);
  jobs_.erase(it);
  if (with_part || !started.part->cancel()) return started.part;
  // The part called off before it began: the data alone (its job's result is still there).
  return std::make_shared<workers::Job<Made>>(
      [data = started.data] { return Made{data->get(), std::nullopt}; });
}

void TopologyReportPreload::hurry() {
  {
    const std::lock_guard lock(lanes_->mutex);
    lanes_->hurry = true;
  }
  launch(lanes_, {}, false);
}

TopologyReport write_topology_report(const std::string& topology_dir, const report::ReportOptions& asked,
                                     TopologyReportPreload* preloaded) {
  const json r = read_topology_json(topology_dir);
  TopologyReport out;
  report::ReportOptions options = asked;
  // Readings started with other limits or for another directory are not this report's; the
  // parts made ahead are where they were made for this report's directory and rendering.
  if (preloaded != nullptr && (!same_dir(preloaded->dir(), topology_dir) || preloaded->options().limits != options.limits))
    preloaded = nullptr;
  const report::ReportOptions* made_for = preloaded != nullptr ? &preloaded->options() : nullptr;
  const bool parts_usable = made_for != nullptr && same_dir(made_for->out_dir, options.out_dir) &&
                            made_for->render == options.render && made_for->gnuplot == options.gnuplot &&
                            made_for->timeout == options.timeout && !options.probed_gnuplot;
  if (parts_usable && options.render) options.probed_gnuplot = preloaded->gnuplot();
  if (preloaded != nullptr) preloaded->hurry();

  // The step bundles are read side by side on the worker pool (those read ahead taken as
  // they are), kept in the steps' order.
  std::vector<std::pair<std::string, std::shared_ptr<workers::Job<TopologyReportPreload::Made>>>> loads;
  for (const auto& e : r.value("experiments", json::array())) {
    if (!e.contains("bundle") || !e["bundle"].is_string()) continue;
    const std::string name = e["bundle"].get<std::string>();
    std::string bundle = (fs::path(topology_dir) / name).string();
    auto job = preloaded != nullptr ? preloaded->take(name, parts_usable) : nullptr;
    if (!job)
      job = workers::start<TopologyReportPreload::Made>([bundle, limits = options.limits] {
        return TopologyReportPreload::Made{report::load_experiment(bundle, limits), std::nullopt};
      });
    loads.emplace_back(std::move(bundle), std::move(job));
  }
  timeline::mark("report: topology.json read, bundles asked for");
  std::vector<report::ExperimentData> experiments;
  std::vector<std::optional<report::ExperimentPart>> ahead;
  for (auto& [bundle, job] : loads) try {
      TopologyReportPreload::Made made = job->get();
      experiments.push_back(std::move(made.data));
      ahead.push_back(parts_usable ? std::move(made.part) : std::nullopt);
    } catch (const std::exception& ex) {
      out.skipped.push_back(bundle + ": " + ex.what());
    }
  timeline::mark("report: every bundle's data in hand");

  report::ReportExtras extras;
  const json& d = r.value("device", json::object());
  extras.title = "Memory topology of " + d.value("name", r.value("selector", std::string("a GPU")));
  // "running" with the directory's lock free: the topology was killed and never said how it ended.
  std::string status = r.value("status", std::string("?"));
  if (status == "running" && !directory_locked(topology_dir)) {
    status = "running, but no process is writing it: killed; `dissect topology --resume " + topology_dir +
             "` continues it";
    out.skipped.push_back(topology_dir + "/topology.json says 'running' but no process is writing it: the topology "
                          "was killed (dissect topology --resume continues it)");
  }
  extras.intro = topology_headline(r) + ".\n\nWritten by `dissect topology` (status: " + status +
                 "); `topology.json` beside the step bundles holds every " +
                 "figure below (schema: docs/topology.md). Each experiment section shows one step's bundle, " +
                 "its findings and plots.";
  if (const std::string c = topology_conditions_line(r); !c.empty()) extras.intro += "\n\n**" + c + ".**";
  extras.tables.push_back(as_report_table(topology_cache_table(r)));
  if (const json& c = r.value("caches", json::object()); c.contains("l2") && c["l2"].contains("hit_levels_cycles")) {
    std::string levels;
    for (const auto& l : c["l2"]["hit_levels_cycles"]) levels += (levels.empty() ? "" : " / ") + l.dump();
    extras.tables.back().note = "L2 hit latency levels (near/far partitions): " + levels + " cycles.";
  }
  std::vector<std::string> notes{topology_l2_whole_line(r), topology_l2_partition_line(r), topology_l2_copies_line(r)};
  for (const std::string& line : topology_cache_structure_lines(r)) notes.push_back(line);
  for (const std::string& line : notes)
    if (!line.empty() && !extras.tables.empty()) {
      std::string& note = extras.tables.back().note;
      note += std::string(note.empty() ? "" : " ") + line + ".";
    }
  if (auto t = topology_tlb_table(r); !t.rows.empty()) extras.tables.push_back(as_report_table(t));
  else if (r.contains("tlb") && r["tlb"].contains("levels_note"))
    extras.tables.push_back(as_report_table(t, "No TLB level found: " + r["tlb"]["levels_note"].get<std::string>()));
  std::vector<std::string> tlb_notes = topology_tlb_structure_lines(r);
  tlb_notes.push_back(topology_page_line(r));
  for (const std::string& line : tlb_notes)
    if (!line.empty() && !extras.tables.empty()) {
      std::string& note = extras.tables.back().note;
      note += std::string(note.empty() ? "" : " ") + line + ".";
    }
  if (auto t = topology_bandwidth_table(r); !t.rows.empty()) extras.tables.push_back(as_report_table(t));
  std::string unread;
  for (const auto& s : out.skipped) unread += "\n- not in the report: " + s;
  extras.tables.push_back(as_report_table(topology_experiment_table(r, false), unread));

  out.result = report::write_report(experiments, options, extras, std::move(ahead));
  return out;
}

}  // namespace dissect
