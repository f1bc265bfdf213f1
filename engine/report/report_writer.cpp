#include "engine/report/report_writer.hpp"

#include <exception>
#include <filesystem>
#include <memory>
#include <optional>
#include <set>
#include <stdexcept>

#include "dissect_git_revision.hpp"
#include "engine/core/files.hpp"
#include "engine/core/timeline.hpp"
#include "engine/core/worker_pool.hpp"
#include "engine/report/gnuplot_runner.hpp"
#include "engine/report/miss_threshold.hpp"
#include "engine/report/plot.hpp"
#include "engine/report/report_format.hpp"

namespace dissect::report {
namespace fs = std::filesystem;

namespace {

bool non_empty_file(const fs::path& p) {
  std::error_code ec;
  return fs::is_regular_file(p, ec) && fs::file_size(p, ec) > 0 && !ec;
}

std::string first_lines(const std::string& text, std::size_t n) {
  std::string out;
  std::size_t start = 0;
  for (std::size_t i = 0; i < n && start < text.size(); ++i) {
    const std::size_t nl = text.find('\n', start);
    std::string line = text.substr(start, nl == std::string::npos ? std::string::npos : nl - start);
    if (!line.empty()) out += (out.empty() ? "" : " / ") + line;
    if (nl == std::string::npos) break;
    start = nl + 1;
  }
  return out;
}

}  // namespace

std::size_t ReportResult::rendered() const {
  std::size_t n = 0;
  for (const auto& p : plots) n += (!p.svg.empty() || !p.png.empty()) ? 1 : 0;
  return n;
}

Gnuplot report_gnuplot(const ReportOptions& options) {
  if (!options.render) {
    Gnuplot off;
    off.message = "rendering was switched off (--no-render)";
    return off;
  }
  return options.probed_gnuplot ? *options.probed_gnuplot : find_gnuplot(options.gnuplot);
}

ExperimentPart write_experiment_part(const ExperimentData& data, const Gnuplot& gp, const ReportOptions& options,
                                     const std::string& slug) {
  const fs::path dir = fs::path(options.out_dir) / slug;
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) throw std::runtime_error(dir.string() + ": cannot create: " + ec.message());
  ExperimentPart done;
  done.slug = slug;
  ExperimentSection& section = done.section;
  section.data = &data;
  section.rel_dir = slug;
  const MissThreshold threshold = miss_threshold(data);
  section.threshold_source = threshold.source;
  PlotContext ctx{data, threshold, gp.png_terminal.empty() ? "pngcairo" : gp.png_terminal};

  const auto choices = select_plots(data, &section.why_none);
  if (choices.empty()) done.warnings.push_back(data.name() + ": " + section.why_none);
  for (const auto& choice : choices) {
    PlotOutput plot = make_plot(choice.kind, ctx);
    if (!plot.skipped.empty()) {
      section.skipped.push_back(std::string(plot_title(choice.kind)) + ": " + plot.skipped);
      continue;
    }
    ReportPlot rp;
    rp.experiment = data.name();
    rp.kind = choice.kind;
    rp.dir = dir.string();
    for (const auto& f : plot.data) {
      write_data_file(dir.string(), f);
      rp.data.push_back((dir / f.name).string());
    }
    rp.script = (dir / (plot.stem + ".gp")).string();
    write_file_atomic(rp.script, plot.script, false);  // regenerable: not fsynced
    const fs::path svg = dir / (plot.stem + ".svg"), png = dir / (plot.stem + ".png");
    std::error_code rm;
    fs::remove(svg, rm);  // never mistake an earlier report's picture for this one
    fs::remove(png, rm);

    PlotSection ps;
    ps.reason = choice.reason;
    ps.rel_dir = slug;
    if (gp.found) {
      const GnuplotRun run = run_gnuplot(gp, plot.stem + ".gp", dir.string(), options.timeout);
      ps.svg = non_empty_file(svg);
      ps.png = non_empty_file(png);
      if (run.timed_out) {
        ps.error = "gnuplot timed out after " + std::to_string(options.timeout.count() / 1000) + " s";
      } else if (run.status != 0 || (!ps.svg && !ps.png)) {
        ps.error = "gnuplot failed (status " + std::to_string(run.status) + "): " + first_lines(run.output, 3);
      }
      if (!ps.error.empty()) done.warnings.push_back(data.name() + ": " + plot.stem + ": " + ps.error);
      if (ps.svg) rp.svg = svg.string();
      if (ps.png) rp.png = png.string();
      rp.error = ps.error;
    }
    ps.plot = std::move(plot);
    section.plots.push_back(std::move(ps));
    done.plots.push_back(std::move(rp));
  }
  return done;
}

ReportResult write_report(const std::vector<std::string>& bundle_dirs, const ReportOptions& options,
                          const ReportExtras& extras) {
  std::vector<ExperimentData> experiments;
  for (const auto& dir : bundle_dirs) experiments.push_back(load_experiment(dir, options.limits));
  return write_report(experiments, options, extras);
}

ReportResult write_report(const std::vector<ExperimentData>& experiments, const ReportOptions& options,
                          const ReportExtras& extras, std::vector<std::optional<ExperimentPart>> ahead) {
  if (options.out_dir.empty()) throw std::runtime_error("report: no output directory");
  const fs::path out(options.out_dir);
  std::error_code ec;
  fs::create_directories(out, ec);
  if (ec) throw std::runtime_error(options.out_dir + ": cannot create report directory: " + ec.message());

  ReportResult result;
  for (const auto& e : experiments)
    for (const auto& d : e.damage) result.warnings.push_back(e.dir + ": " + d);
  const Gnuplot gp = report_gnuplot(options);
  result.gnuplot_found = gp.found;
  result.gnuplot_message = gp.message;

  ReportDocument doc;
  doc.title = extras.title.empty() ? "dissect report" : extras.title;
  doc.generated = std::string("dissect ") + DISSECT_VERSION + " (git " + DISSECT_GIT_REVISION + "), " + utc_timestamp();
  doc.rendered = gp.found;
  doc.rendering = gp.found ? gp.message + "."
                           : gp.message + ". The data files and gnuplot scripts are written; render a plot with "
                                          "`gnuplot STEM.gp` in its directory.";
  doc.intro = extras.intro;
  doc.tables = extras.tables;
  for (const auto& f : extras.findings) doc.findings.push_back(f.to_json());

  // Each experiment's part (its plots' data, scripts and rendering) is made on the worker
  // pool, side by side with the others (a gnuplot each); the waiting thread makes those no
  // worker has started. Directories are named first, in order; a part made ahead under the
  // name this report gives it is taken as it is.
  std::set<std::string> used_dirs;
  std::vector<std::shared_ptr<workers::Job<ExperimentPart>>> jobs;
  for (std::size_t i = 0; i < experiments.size(); ++i) {
    const ExperimentData& data = experiments[i];
    std::string slug = file_slug(data.name());
    for (int k = 2; used_dirs.count(slug) != 0; ++k) slug = file_slug(data.name()) + "-" + std::to_string(k);
    used_dirs.insert(slug);
    if (i < ahead.size() && ahead[i] && ahead[i]->slug == slug) {
      auto part = std::make_shared<ExperimentPart>(std::move(*ahead[i]));
      part->section.data = &data;  // the same experiment, where the caller keeps it now
      // Not queued: taken where it is by the loop below.
      jobs.push_back(std::make_shared<workers::Job<ExperimentPart>>([part] { return std::move(*part); }));
      continue;
    }
    jobs.push_back(workers::start<ExperimentPart>(
        [&data, &gp, &options, slug] { return write_experiment_part(data, gp, options, slug); }));
  }
  // In order, as the experiments were given; the first failure is thrown, after every job ended.
  std::exception_ptr failed;
  for (auto& job : jobs) try {
      ExperimentPart done = job->get();
      for (auto& w : done.warnings) result.warnings.push_back(std::move(w));
      for (auto& p : done.plots) result.plots.push_back(std::move(p));
      doc.experiments.push_back(std::move(done.section));
    } catch (...) {
      if (!failed) failed = std::current_exception();
    }
  if (failed) std::rethrow_exception(failed);

  timeline::mark("report: plots made");
  result.report_md = (out / "report.md").string();
  write_file_atomic(result.report_md, render_markdown(doc), false);  // regenerable: not fsynced
  return result;
}

}  // namespace dissect::report
