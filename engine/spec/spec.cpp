#include "engine/spec/spec.hpp"

#include <algorithm>
#include <filesystem>
#include <functional>
#include <fstream>
#include <map>
#include <set>
#include <unordered_map>
#include <sstream>

#include "engine/spec/experiment_decoder.hpp"
#include "engine/spec/identifier.hpp"
#include "engine/spec/point_decoder.hpp"
#include "engine/spec/units.hpp"

namespace dissect {
namespace fs = std::filesystem;

namespace {

constexpr std::size_t kMaxReportedErrors = 25;

// Resolves `include:` recursively. Included files are bases: the including
// file overrides them key by key.
SpecNode resolve_includes(const SpecNode& node, const std::string& file, std::vector<std::string>& chain,
                          std::vector<std::string>& included, Diagnostics& d) {
  if (!node.is_map()) return node;
  const SpecNode::Entry* inc = node.find_entry("include");
  if (inc == nullptr) return node;
  std::vector<const SpecNode*> names;
  if (inc->value.is_scalar()) names.push_back(&inc->value);
  else if (inc->value.is_sequence())
    for (const auto& i : inc->value.items) names.push_back(&i);
  else {
    d.error(inc->value.loc, "include: expected a file name or a list of file names");
    return node;
  }
  SpecNode merged = SpecNode::make_map(node.loc);
  for (const SpecNode* n : names) {
    if (!n->is_scalar()) {
      d.error(n->loc, "include: expected a file name");
      continue;
    }
    const fs::path base_dir = fs::path(file).parent_path();
    const fs::path target = (base_dir / n->scalar).lexically_normal();
    const std::string target_s = target.string();
    if (std::find(chain.begin(), chain.end(), target_s) != chain.end()) {
      d.error(n->loc, "include: '" + n->scalar + "' includes itself (cycle: " + file + " -> " + target_s + ")");
      continue;
    }
    // The error_code form: a name the file system refuses (too long, a component
    // over NAME_MAX) is a file not found, not an exception.
    std::error_code ec;
    if (!fs::exists(target, ec)) {
      d.error(n->loc, "include: file '" + n->scalar + "' not found (looked for " + target_s +
                          (ec ? ": " + ec.message() : std::string()) + ")");
      continue;
    }
    SpecNode sub;
    std::string sub_text;
    try {
      sub_text = read_spec_file(target_s);
    } catch (const SpecError& e) {
      // Said at the include line: the file itself may be no spec at all (/dev/zero).
      for (const auto& err : e.diagnostics().errors()) d.error(n->loc, "include: " + err.str());
      continue;
    }
    try {
      sub = parse_yaml(sub_text, target_s);
    } catch (const SpecError& e) {
      d.merge(e.diagnostics());
      continue;
    }
    chain.push_back(target_s);
    sub = resolve_includes(sub, target_s, chain, included, d);
    chain.pop_back();
    included.push_back(target_s);
    if (!sub.is_map()) {
      d.error(n->loc, "include: '" + n->scalar + "' is not a mapping of spec keys");
      continue;
    }
    sub.erase("abstract");  // a base file's abstractness is not inherited
    sub.erase("name");      // nor its name
    merged = merge_nodes(merged, sub);
  }
  SpecNode self = node;
  self.erase("include");
  return merge_nodes(merged, self);
}

// An override's value as its locations show it: at most kShownValueChars characters (cut at
// a UTF-8 character's start), then "...".
std::string abbreviated_value(const std::string& value) {
  constexpr std::size_t kShownValueChars = 48;
  if (value.size() <= kShownValueChars + 3) return value;
  std::size_t cut = kShownValueChars;
  while (cut > 0 && (static_cast<unsigned char>(value[cut]) & 0xC0) == 0x80) --cut;
  return value.substr(0, cut) + "...";
}

void apply_overrides(SpecNode& root, const std::vector<SpecOverride>& overrides, Diagnostics& d) {
  for (const auto& o : overrides) {
    // Every node of the value carries this in its location: a long value (a topology's
    // sweep of hundreds of points) is abbreviated, or each copy of a node would copy it whole.
    const std::string where = "--set " + o.key + "=" + abbreviated_value(o.value);
    SpecNode value;
    try {
      value = parse_yaml(o.value, where);
    } catch (const SpecError& e) {
      d.merge(e.diagnostics());
      continue;
    }
    // Locations of override values point at the command line, column 1 of the value.
    std::function<void(SpecNode&)> relocate = [&](SpecNode& n) {
      n.loc = Location{where, 1, static_cast<int>(o.key.size() + 7 + 1)};
      for (auto& i : n.items) relocate(i);
      for (auto& e : n.entries) {
        e.key_loc = n.loc;
        relocate(e.value);
      }
    };
    relocate(value);
    const std::string top = o.key.substr(0, o.key.find('.'));
    const auto& known = known_field_paths();
    const bool is_known = std::find(known.begin(), known.end(), o.key) != known.end() ||
                          top == "sweep" || top == "arrays" || top == "phases";
    if (!is_known) {
      std::string msg = "unknown key '" + o.key + "'";
      const std::string guess = closest_match(o.key, known);
      if (!guess.empty()) msg += "; did you mean '" + guess + "'?";
      d.error(Location{where, 1, 7}, msg);
      continue;
    }
    // Sweep axes are keyed by whole dotted field names: "sweep.array.size" sets
    // the axis "array.size" of the sweep mapping.
    bool ok = false;
    if (o.key.rfind("sweep.", 0) == 0 && o.key.size() > 6) {
      SpecNode* sweep = root.find("sweep");
      if (sweep == nullptr || sweep->is_null()) {
        root.set("sweep", SpecNode::make_map(Location{where, 1, 7}), Location{where, 1, 7});
        sweep = root.find("sweep");
      }
      if (sweep->is_map()) {
        sweep->set(o.key.substr(6), value, Location{where, 1, 7});
        ok = true;
      }
    } else {
      ok = root.set_path(o.key, value, Location{where, 1, 7});
    }
    if (!ok) d.error(Location{where, 1, 7}, "cannot set '" + o.key + "': a part of it is not a mapping");
  }
}

void check_version(const SpecNode& root, Diagnostics& d) {
  const SpecNode* v = root.find("dissect");
  if (v == nullptr) {
    d.error(Location{root.loc.file, 1, 1},
            "missing format version: add 'dissect: " + std::to_string(kSpecFormatVersion) + "' as the first line");
    return;
  }
  if (!v->is_scalar() || v->scalar != std::to_string(kSpecFormatVersion))
    d.error(v->loc, "unsupported spec format version '" + (v->is_scalar() ? v->scalar : v->kind_name()) +
                        "' (this dissect reads version " + std::to_string(kSpecFormatVersion) + ")");
}

// Error lists from sweeps repeat: the same value fails for many points. Keep
// one line per (location, message) and cap the total.
Diagnostics dedupe(const Diagnostics& in, std::uint64_t points_failed) {
  Diagnostics out;
  std::set<std::string> seen;
  std::size_t dropped = 0;
  for (const auto& e : in.errors()) {
    if (!seen.insert(e.str()).second) continue;
    if (out.size() >= kMaxReportedErrors) {
      ++dropped;
      continue;
    }
    out.error(e.where, e.message);
  }
  if (dropped > 0 || points_failed > 1) {
    Location where = in.errors().empty() ? Location{} : in.errors().back().where;
    if (dropped > 0)
      out.error(where, std::to_string(dropped) + " more distinct errors not shown (" + std::to_string(points_failed) +
                           " sweep points fail)");
  }
  return out;
}

Spec finish_loading(Spec spec, const LoadOptions& options, Diagnostics& d) {
  check_version(spec.root, d);
  if (const SpecNode* mp = spec.root.find("max_points")) {
    std::string err;
    auto v = mp->is_scalar() ? parse_count(mp->scalar, err) : std::nullopt;
    if (!v || *v == 0) d.error(mp->loc, "max_points: expected a whole number above zero");
    else spec.max_points = *v;
  }
  if (options.max_points != 0) spec.max_points = options.max_points;

  // The base experiment is decoded from the tree without the sweep.
  spec.base = decode_experiment(spec.root, d);
  if (spec.base.name.empty()) {
    // Named after its file: that name must be usable as a directory name too.
    spec.base.name = fs::path(spec.path).stem().string();
    if (const auto why = name_problem(spec.base.name))
      d.error(Location{spec.path, 1, 1}, "the spec has no 'name:' and its file name cannot stand in: the name " +
                                             *why + "; add a name: line");
  }
  if (const SpecNode* sw = spec.root.find("sweep")) {
    spec.sweep = parse_sweep(*sw, spec.max_points, d, &spec.sweep_options);
    const std::uint64_t count = spec.point_count();
    if (count > spec.max_points)
      d.error(spec.root.find_entry("sweep")->key_loc,
              "sweep expands to " + std::to_string(count) + " points, more than the limit of " +
                  std::to_string(spec.max_points) + " (set max_points in the spec or --max-points)");
    for (const auto& dim : spec.sweep)
      for (const auto& axis : dim.axes) {
        const auto& known = known_field_paths();
        const std::string top = axis.field.substr(0, axis.field.find('.'));
        if (std::find(known.begin(), known.end(), axis.field) == known.end() && top != "arrays" &&
            top != "phases") {
          std::string msg = "sweep: unknown field '" + axis.field + "'";
          const std::string guess = closest_match(axis.field, known);
          if (!guess.empty()) msg += "; did you mean '" + guess + "'?";
          d.error(axis.loc, msg);
        }
      }
  }
  if (!d.empty()) throw SpecError(dedupe(d, 0));
  // An adaptive search's points are decoded while it runs. Decode its bounds now, every
  // combination of the other axes at the search's from and to, so that a size the search
  // can reach and the spec refuses (e.g. past layout.copy_stride) fails here, before any
  // point has run, rather than ending the run at that point.
  if (!spec.base.abstract && spec.adaptive()) {
    Spec bounds = spec;
    for (auto& dim : bounds.sweep)
      if (dim.adaptive()) {
        SweepAxis& a = dim.axes.front();
        a.kind = SweepAxis::Kind::list;
        a.values = {a.search_from, a.search_to};
      }
    (void)bounds.expand();
  }
  // Decode every point now so that a bad combination is caught before any run.
  if (!spec.base.abstract && !spec.adaptive()) {
    spec.expanded = spec.expand();
    spec.skipped_points = sweep_point_count(spec.sweep) - spec.expanded.size();
    if (spec.expanded.empty())
      throw SpecError(spec.root.find_entry("sweep")->key_loc,
                      "sweep: every combination is invalid (skip_invalid left no point to run)");
  }
  return spec;
}

}  // namespace

bool Spec::adaptive() const {
  for (const auto& dim : sweep)
    if (dim.adaptive()) return true;
  return false;
}

Point Spec::make_point(std::size_t id, const std::vector<std::pair<std::string, SpecNode>>& values) const {
  std::vector<AxisValueRef> refs;
  refs.reserve(values.size());
  for (const auto& [field, value] : values) refs.push_back({&field, &value});
  return PointDecoder(root, base.name).decode(id, refs);
}

std::vector<Point> Spec::expand() const {
  if (adaptive())
    throw SpecError(root.find_entry("sweep")->key_loc,
                    "this sweep has an adaptive search axis; it is expanded while running, not in advance");
  std::vector<Point> points;
  const std::uint64_t total = sweep_point_count(sweep);
  points.reserve(static_cast<std::size_t>(total));
  std::vector<std::size_t> idx(sweep.size(), 0);
  // Errors repeat across points (one bad value fails every point it is in):
  // report each once, with the first point it failed at and how many.
  struct Failure {
    Diagnostic first;
    std::string point;
    std::uint64_t count = 0;
  };
  std::vector<Failure> failures;
  std::unordered_map<std::string, std::size_t> failure_of;  // Diagnostic::str() -> index in failures
  std::uint64_t failed = 0;
  // One working tree for all points (engine/spec/point_decoder.hpp), not a copy each.
  PointDecoder decoder(root, base.name);
  std::vector<AxisValueRef> values;
  for (std::uint64_t n = 0; n < total; ++n) {
    // Odometer: the last dimension moves fastest.
    std::uint64_t rest = n;
    for (std::size_t k = sweep.size(); k-- > 0;) {
      idx[k] = static_cast<std::size_t>(rest % sweep[k].size());
      rest /= sweep[k].size();
    }
    values.clear();
    for (std::size_t k = 0; k < sweep.size(); ++k)
      for (const auto& axis : sweep[k].axes) values.push_back({&axis.field, &axis.values[idx[k]]});
    try {
      points.push_back(decoder.decode(points.size(), values));
    } catch (const SpecError& e) {
      if (sweep_options.skip_invalid) continue;
      ++failed;
      std::string which;
      for (const auto& v : values) which += (which.empty() ? "" : ", ") + *v.field + "=" + v.value->scalar;
      // Looked up by hash: thousands of failing points, each with its own message, stay linear.
      for (const auto& err : e.diagnostics().errors()) {
        const auto [it, fresh] = failure_of.try_emplace(err.str(), failures.size());
        if (fresh) failures.push_back({err, which, 1});
        else ++failures[it->second].count;
      }
    }
  }
  Diagnostics all;
  for (const auto& f : failures) {
    std::string msg = f.first.message;
    if (!f.point.empty()) {
      msg += " (at sweep point " + f.point;
      if (f.count > 1) msg += ", and " + std::to_string(f.count - 1) + " more points";
      msg += ")";
    }
    all.error(f.first.where, msg);
  }
  if (!all.empty()) throw SpecError(dedupe(all, failed));
  return points;
}

Spec load_spec_text(const std::string& text, const std::string& name, const LoadOptions& options) {
  Spec spec;
  spec.path = name;
  spec.text = text;
  check_spec_text(text, name);
  Diagnostics d;
  SpecNode root = parse_yaml(text, name);  // throws on syntax errors
  std::vector<std::string> chain{name};
  root = resolve_includes(root, name, chain, spec.included, d);
  apply_overrides(root, options.overrides, d);
  spec.root = std::move(root);
  return finish_loading(std::move(spec), options, d);
}

Spec load_spec(const std::string& path, const LoadOptions& options) {
  return load_spec_text(read_spec_file(path), path, options);
}

}  // namespace dissect
