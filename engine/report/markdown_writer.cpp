#include "engine/report/markdown_writer.hpp"

#include <cctype>
#include <cmath>
#include <cstdio>

#include "engine/report/report_format.hpp"

namespace dissect::report {

namespace {

std::string str(const nlohmann::json& j, const char* key, const std::string& fallback = "") {
  if (!j.is_object() || !j.contains(key)) return fallback;
  const auto& v = j[key];
  if (v.is_string()) return v.get<std::string>();
  if (v.is_null()) return fallback;
  if (v.is_number()) return number_label(v.get<double>(), 6);
  return v.dump();
}

std::string device_text(const nlohmann::json& d) {
  if (!d.is_object() || d.empty()) return "unknown";
  std::string out = str(d, "name", "unnamed device");
  std::string extra;
  const auto add = [&](const std::string& label, const std::string& value) {
    if (!value.empty()) extra += (extra.empty() ? "" : ", ") + label + value;
  };
  add("", str(d, "kind"));
  add("profile ", str(d, "profile"));
  add("compute capability ", str(d, "compute_capability"));
  add("", str(d, "sms").empty() ? "" : str(d, "sms") + " SMs");
  if (d.contains("sm_clock_khz") && d["sm_clock_khz"].is_number())
    add("SM clock ", number_label(d["sm_clock_khz"].get<double>() / 1000.0, 5) + " MHz");
  return extra.empty() ? out : out + " (" + extra + ")";
}

// "59.2 ms", "1.23 s", "12 min 3 s".
std::string duration_label(double ms) {
  char buf[64];
  if (ms < 1000) {
    std::snprintf(buf, sizeof buf, "%.3g ms", ms);
  } else if (ms < 60000) {
    std::snprintf(buf, sizeof buf, "%.2f s", ms / 1000);
  } else {
    const auto s = static_cast<long long>(ms / 1000 + 0.5);
    std::snprintf(buf, sizeof buf, "%lld min %lld s", s / 60, s % 60);
  }
  return buf;
}

std::string link(const std::string& text, const std::string& target) { return "[" + text + "](" + target + ")"; }

std::string join_path(const std::string& dir, const std::string& file) { return dir.empty() ? file : dir + "/" + file; }

}  // namespace

std::string markdown_table(const std::vector<std::string>& columns, const std::vector<std::vector<std::string>>& rows) {
  std::string out = "|";
  for (const auto& c : columns) out += " " + md_cell(c) + " |";
  out += "\n|";
  for (std::size_t i = 0; i < columns.size(); ++i) out += " --- |";
  out += "\n";
  for (const auto& r : rows) {
    out += "|";
    for (std::size_t i = 0; i < columns.size(); ++i) out += " " + (i < r.size() ? md_cell(r[i]) : "") + " |";
    out += "\n";
  }
  return out;
}

std::string finding_value_text(const nlohmann::json& f) {
  if (!f.is_object() || !f.contains("value") || f["value"].is_null()) return "undetermined";
  const auto& v = f["value"];
  const std::string unit = str(f, "unit");
  if (v.is_number()) {
    const double x = v.get<double>();
    if (unit == "B") {
      const std::string label = size_label(x);
      return label.find(" B") != std::string::npos ? label : label + " (" + number_label(x) + " B)";
    }
    return number_label(x, 6) + (unit.empty() ? "" : " " + unit);
  }
  return (v.is_string() ? v.get<std::string>() : v.dump()) + (unit.empty() ? "" : " " + unit);
}

std::string findings_table(const nlohmann::json& findings) {
  if (!findings.is_array() || findings.empty()) return "";
  std::vector<std::vector<std::string>> rows;
  for (const auto& f : findings) {
    if (!f.is_object()) continue;
    std::string conf = "";
    if (f.contains("confidence") && f["confidence"].is_number()) {
      char buf[32];
      std::snprintf(buf, sizeof buf, "%.2f", f["confidence"].get<double>());
      conf = buf;
    }
    std::string summary = str(f, "summary");
    if (summary.empty() && f.contains("details")) summary = str(f["details"], "reason");
    rows.push_back({"`" + str(f, "analyzer", "?") + "`", finding_value_text(f), conf, summary});
  }
  return markdown_table({"analyzer", "value", "confidence", "summary"}, rows);
}

std::string expectations_table(const nlohmann::json& expectations) {
  if (!expectations.is_array() || expectations.empty()) return "";
  std::vector<std::vector<std::string>> rows;
  for (const auto& x : expectations) {
    if (!x.is_object()) continue;
    const std::string outcome = str(x, "outcome", "unknown");
    const std::string shown = outcome == "pass" ? "pass" : outcome == "fail" ? "**FAIL**" : "*unknown*";
    rows.push_back({"`" + str(x, "expect") + "`", shown, str(x, "actual"), str(x, "message")});
  }
  return markdown_table({"expectation", "outcome", "measured", "message"}, rows);
}

std::string run_table(const ExperimentData& data) {
  const auto& h = data.header;
  const nlohmann::json spec = h.contains("spec") && h["spec"].is_object() ? h["spec"] : nlohmann::json::object();
  const nlohmann::json tool = h.contains("tool") && h["tool"].is_object() ? h["tool"] : nlohmann::json::object();
  const nlohmann::json timings =
      h.contains("timings") && h["timings"].is_object() ? h["timings"] : nlohmann::json::object();
  std::vector<std::vector<std::string>> rows;
  const auto row = [&rows](const std::string& k, const std::string& v) {
    if (!v.empty()) rows.push_back({k, v});
  };
  std::string spec_text = data.name();
  if (!str(spec, "description").empty()) spec_text += ": " + str(spec, "description");
  row("spec", spec_text);
  row("source", str(spec, "source"));
  row("spec file", str(spec, "path").empty() ? "" : "`" + str(spec, "path") + "`");
  row("device", device_text(h.contains("device") ? h["device"] : nlohmann::json()));
  std::string t = str(tool, "name", "dissect") + " " + str(tool, "version", "?");
  if (!str(tool, "git_revision").empty()) t += " (git " + str(tool, "git_revision") + ")";
  row("tool", t);
  const std::string started = str(h, "started"), finished = str(h, "finished");
  if (!started.empty()) row("when", started + (finished.empty() ? "" : " to " + finished));
  if (timings.contains("wall_ms") && timings["wall_ms"].is_number()) {
    std::string w = duration_label(timings["wall_ms"].get<double>());
    if (timings.contains("kernel_ms") && timings["kernel_ms"].is_number())
      w += " (kernels " + duration_label(timings["kernel_ms"].get<double>());
    if (timings.contains("compile_ms") && timings["compile_ms"].is_number())
      w += ", compile " + duration_label(timings["compile_ms"].get<double>()) + ")";
    else if (w.find('(') != std::string::npos)
      w += ")";
    row("wall time", w);
  } else {
    row("wall time", "not recorded");
  }
  std::size_t ok = 0;
  for (const auto& p : data.points) ok += p.ok() ? 1 : 0;
  std::string status = str(h, "status", "unknown") + ": " + std::to_string(data.points.size()) +
                       (data.points.size() == 1 ? " point" : " points") + " committed";
  if (ok != data.points.size()) status += " (" + std::to_string(data.points.size() - ok) + " failed)";
  if (spec.contains("points") && spec["points"].is_number())
    status += " of " + number_label(spec["points"].get<double>());
  status += ", " + std::to_string(data.trace_rows) + " samples";
  row("status", status);
  if (!str(h, "error").empty()) row("error", str(h, "error"));
  row("bundle", "`" + data.dir + "`");
  return markdown_table({"run", ""}, rows);
}

std::string markdown_anchor(const std::string& heading) {
  std::string out;
  for (char c : heading) {
    const auto u = static_cast<unsigned char>(c);
    if (std::isalnum(u) || c == '-' || c == '_') {
      out += static_cast<char>(std::tolower(u));
    } else if (c == ' ') {
      out += '-';
    }
  }
  return out;
}

std::string render_markdown(const ReportDocument& doc) {
  std::string md = "# " + doc.title + "\n\n";
  if (!doc.generated.empty()) md += "Generated by " + doc.generated + ".\n";
  if (!doc.rendering.empty()) md += (doc.rendered ? "Plots " : "**Plots not rendered:** ") + doc.rendering + "\n";
  md += "\n";
  if (!doc.intro.empty()) md += doc.intro + "\n\n";
  for (const auto& t : doc.tables) {
    if (!t.title.empty()) md += "## " + t.title + "\n\n";
    md += markdown_table(t.columns, t.rows) + "\n";
    if (!t.note.empty()) md += t.note + "\n\n";
  }
  if (doc.findings.is_array() && !doc.findings.empty()) md += "## Findings\n\n" + findings_table(doc.findings) + "\n";

  if (doc.experiments.size() > 1) {
    md += "## Experiments\n\n";
    std::vector<std::vector<std::string>> rows;
    for (const auto& e : doc.experiments) {
      const std::string name = e.data->name();
      std::size_t rendered = 0;
      for (const auto& p : e.plots) rendered += p.svg || p.png ? 1 : 0;
      rows.push_back({link(name, "#" + markdown_anchor(name)), str(e.data->header, "status", "unknown"),
                      std::to_string(e.data->points.size()), std::to_string(e.data->findings.size()),
                      std::to_string(e.plots.size()) + (doc.rendered ? " (" + std::to_string(rendered) + " rendered)" : "")});
    }
    md += markdown_table({"experiment", "status", "points", "findings", "plots"}, rows) + "\n";
  }

  for (const auto& e : doc.experiments) {
    const ExperimentData& d = *e.data;
    md += "## " + d.name() + "\n\n";
    md += run_table(d) + "\n";

    md += "### Findings\n\n";
    if (!d.has_findings_file) {
      md += "No findings.json in the bundle (run `dissect analyze " + d.dir + " --write`).\n\n";
    } else if (d.findings.empty()) {
      md += "The bundle's findings.json holds no findings.\n\n";
    } else {
      md += findings_table(d.findings) + "\n";
    }
    if (!d.expectations.empty()) md += "Expectations:\n\n" + expectations_table(d.expectations) + "\n";

    md += "### Plots\n\n";
    if (e.plots.empty() && !e.why_none.empty()) md += "No plot: " + e.why_none + ".\n\n";
    for (const auto& s : e.skipped) md += "Not drawn: " + s + ".\n\n";
    for (const auto& p : e.plots) {
      const std::string stem = join_path(p.rel_dir, p.plot.stem);
      md += "#### " + p.plot.title + "\n\n";
      if (p.svg) {
        md += "![" + p.plot.title + "](" + stem + ".svg)\n\n";
      } else if (p.png) {
        md += "![" + p.plot.title + "](" + stem + ".png)\n\n";
      } else if (!p.error.empty()) {
        md += "*Rendering failed:* " + md_cell(p.error) + "\n\n";
      } else {
        md += "*Not rendered*: run `gnuplot " + p.plot.stem + ".gp` in `" + (p.rel_dir.empty() ? "." : p.rel_dir) +
              "/`.\n\n";
      }
      md += p.plot.caption + "\n\n";
      std::string files;
      if (p.svg) files += link("SVG", stem + ".svg") + " · ";
      if (p.png) files += link("PNG", stem + ".png") + " · ";
      files += "script " + link(p.plot.stem + ".gp", stem + ".gp") + " · data";
      for (const auto& f : p.plot.data) files += " " + link(f.name, join_path(p.rel_dir, f.name));
      md += "Why this plot: " + p.reason + ". Files: " + files + "\n\n";
      for (const auto& n : p.plot.notes) md += "> " + n + ".\n\n";
    }
    bool uses_threshold = false;
    for (const auto& p : e.plots)
      uses_threshold |= p.plot.kind == PlotKind::miss_staircase || p.plot.kind == PlotKind::tlb_staircase ||
                        p.plot.kind == PlotKind::trace_heatmap;
    if (!e.threshold_source.empty() && uses_threshold) md += "Hits and misses: " + e.threshold_source + ".\n\n";
  }
  return md;
}

}  // namespace dissect::report
