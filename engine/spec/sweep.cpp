#include "engine/spec/sweep.hpp"

#include <cmath>
#include <cstdlib>
#include <limits>
#include <set>

#include "engine/spec/units.hpp"

namespace dissect {
namespace {

// A numeric value of an axis: a count, or a quantity in bytes or elements.
struct AxisNumber {
  long double amount = 0;
  bool is_quantity = false;
  QuantityUnit unit = QuantityUnit::bytes;
};

std::optional<AxisNumber> parse_axis_number(const SpecNode& n, const std::string& unit, const std::string& what,
                                            Diagnostics& d) {
  if (!n.is_scalar()) {
    d.error(n.loc, what + ": expected a number or a size, got " + n.kind_name());
    return std::nullopt;
  }
  std::string err;
  // Bare numbers are counts unless the axis names a unit.
  bool bare = !n.scalar.empty();
  for (char c : n.scalar)
    if (!(std::isdigit(static_cast<unsigned char>(c)) || c == '.' || c == ' ')) bare = false;
  if (bare && unit.empty()) {
    if (n.scalar.find('.') != std::string::npos) {
      AxisNumber a;
      a.amount = std::stold(n.scalar);
      return a;
    }
    auto c = parse_count(n.scalar, err);
    if (!c) {
      d.error(n.loc, what + ": " + err);
      return std::nullopt;
    }
    return AxisNumber{static_cast<long double>(*c), false, QuantityUnit::bytes};
  }
  auto q = parse_quantity(n.scalar, unit, err);
  if (!q) {
    d.error(n.loc, what + ": " + err);
    return std::nullopt;
  }
  return AxisNumber{static_cast<long double>(q->amount), true, q->unit};
}

SpecNode number_node(std::uint64_t v, const AxisNumber& like, const Location& loc) {
  std::string text = std::to_string(v);
  if (like.is_quantity) text += like.unit == QuantityUnit::elements ? " elements" : " B";
  return SpecNode::make_scalar(text, loc);
}

SpecNode with_unit(const SpecNode& n, const std::string& unit) {
  if (unit.empty() || !n.is_scalar()) return n;
  bool bare = !n.scalar.empty();
  for (char c : n.scalar)
    if (!(std::isdigit(static_cast<unsigned char>(c)) || c == '.')) bare = false;
  if (!bare) return n;
  SpecNode out = n;
  out.scalar += " " + unit;
  return out;
}

std::optional<SweepAxis> parse_axis(const std::string& field, const Location& key_loc, const SpecNode& v,
                                    const std::string& outer_unit, std::uint64_t limit, Diagnostics& d) {
  SweepAxis axis;
  axis.field = field;
  axis.loc = key_loc;
  const std::string what = "sweep " + field;
  if (v.is_scalar()) {
    axis.values.push_back(with_unit(v, outer_unit));
    return axis;
  }
  if (v.is_sequence()) {
    if (v.items.empty()) {
      d.error(v.loc, what + ": the list of values is empty");
      return std::nullopt;
    }
    for (const auto& item : v.items) {
      if (!item.is_scalar()) {
        d.error(item.loc, what + ": each value must be a single value, got " + item.kind_name());
        return std::nullopt;
      }
      axis.values.push_back(with_unit(item, outer_unit));
    }
    return axis;
  }
  if (!v.is_map()) {
    d.error(v.loc, what + ": expected a value, a list, or a range {from, to, step|factor}");
    return std::nullopt;
  }
  static const std::set<std::string> keys{"from", "to", "step", "factor", "values", "unit", "search", "resolution"};
  for (const auto& e : v.entries) {
    if (keys.count(e.key) == 0) {
      std::string msg = what + ": unknown key '" + e.key + "'";
      const std::string guess =
          closest_match(e.key, {"from", "to", "step", "factor", "values", "unit", "search", "resolution"});
      if (!guess.empty()) msg += "; did you mean '" + guess + "'?";
      d.error(e.key_loc, msg);
      return std::nullopt;
    }
  }
  std::string unit = outer_unit;
  if (const SpecNode* u = v.find("unit")) {
    if (!u->is_scalar()) {
      d.error(u->loc, what + ": unit must be a unit name such as B, KiB or elements");
      return std::nullopt;
    }
    unit = u->scalar;
    std::string err;
    if (!parse_quantity("1", unit, err)) {
      d.error(u->loc, what + ": " + err);
      return std::nullopt;
    }
  }
  if (const SpecNode* values = v.find("values")) {
    return parse_axis(field, key_loc, *values, unit, limit, d);
  }
  const SpecNode* from = v.find("from");
  const SpecNode* to = v.find("to");
  if (v.find("search") != nullptr) {
    axis.kind = SweepAxis::Kind::search;
    const SpecNode* goal = v.find("search");
    axis.search_goal = goal->is_scalar() ? goal->scalar : "";
    if (axis.search_goal != "knee") {
      d.error(goal->loc, what + ": search goal must be 'knee' (the adaptive cache-size search)");
      return std::nullopt;
    }
    if (from == nullptr || to == nullptr) {
      d.error(v.loc, what + ": a search needs from and to (the bounds to search between)");
      return std::nullopt;
    }
    auto f = parse_axis_number(*from, unit, what + " from", d);
    auto t = parse_axis_number(*to, unit, what + " to", d);
    if (!f || !t) return std::nullopt;
    if (f->amount >= t->amount) {
      d.error(to->loc, what + ": 'to' must be larger than 'from'");
      return std::nullopt;
    }
    axis.search_from = with_unit(*from, unit);
    axis.search_to = with_unit(*to, unit);
    if (const SpecNode* r = v.find("resolution")) {
      if (r->is_scalar() && !r->scalar.empty() && r->scalar.back() == '%') {
        // Relative: a share of where the knee was bracketed (engine/run/adaptive_search.cpp).
        char* end = nullptr;
        const std::string num = r->scalar.substr(0, r->scalar.size() - 1);
        const double pct = std::strtod(num.c_str(), &end);
        if (num.empty() || end != num.c_str() + num.size() || !(pct > 0) || pct >= 100) {
          d.error(r->loc, what + " resolution: a share must be a number between 0 and 100 followed by %, e.g. 2%");
          return std::nullopt;
        }
        axis.search_resolution = *r;
        axis.search_resolution_share = pct / 100;
      } else {
        if (!parse_axis_number(*r, unit, what + " resolution", d)) return std::nullopt;
        axis.search_resolution = with_unit(*r, unit);
      }
    }
    return axis;
  }
  if (from == nullptr || to == nullptr) {
    d.error(v.loc, what + ": a range needs from, to and step (linear) or factor (geometric)");
    return std::nullopt;
  }
  const SpecNode* step = v.find("step");
  const SpecNode* factor = v.find("factor");
  if ((step == nullptr) == (factor == nullptr)) {
    d.error(v.loc, what + ": a range takes either step (linear) or factor (geometric), not " +
                       (step ? "both" : "neither"));
    return std::nullopt;
  }
  auto f = parse_axis_number(*from, unit, what + " from", d);
  auto t = parse_axis_number(*to, unit, what + " to", d);
  if (!f || !t) return std::nullopt;
  if (f->is_quantity != t->is_quantity || (f->is_quantity && f->unit != t->unit)) {
    d.error(to->loc, what + ": from and to must count the same thing (both bytes, both elements or both plain numbers)");
    return std::nullopt;
  }
  if (f->amount > t->amount) {
    d.error(to->loc, what + ": 'to' is smaller than 'from'");
    return std::nullopt;
  }
  if (step != nullptr) {
    axis.kind = SweepAxis::Kind::linear;
    auto s = parse_axis_number(*step, unit, what + " step", d);
    if (!s) return std::nullopt;
    if (s->is_quantity != f->is_quantity || (s->is_quantity && s->unit != f->unit)) {
      d.error(step->loc, what + ": step must count the same thing as from and to");
      return std::nullopt;
    }
    if (s->amount <= 0) {
      d.error(step->loc, what + ": step must be larger than zero");
      return std::nullopt;
    }
    const long double count = std::floor((t->amount - f->amount) / s->amount) + 1;
    if (count > static_cast<long double>(limit)) {
      d.error(v.loc, what + ": the range has " + std::to_string(static_cast<unsigned long long>(count)) +
                         " values, more than the point limit of " + std::to_string(limit) +
                         " (raise max_points or --max-points)");
      return std::nullopt;
    }
    for (long double x = f->amount; x <= t->amount; x += s->amount)
      axis.values.push_back(number_node(static_cast<std::uint64_t>(x), *f, v.loc));
    return axis;
  }
  axis.kind = SweepAxis::Kind::geometric;
  auto fac = parse_axis_number(*factor, "", what + " factor", d);
  if (!fac) return std::nullopt;
  if (fac->amount <= 1) {
    d.error(factor->loc, what + ": factor must be larger than 1");
    return std::nullopt;
  }
  if (f->amount <= 0) {
    d.error(from->loc, what + ": a geometric range must start above zero");
    return std::nullopt;
  }
  std::uint64_t last = 0;
  for (long double x = f->amount; x <= t->amount * (1 + 1e-12L); x *= fac->amount) {
    const auto rounded = static_cast<std::uint64_t>(std::llround(x));
    if (!axis.values.empty() && rounded == last) continue;
    last = rounded;
    axis.values.push_back(number_node(rounded, *f, v.loc));
    if (axis.values.size() > limit) {
      d.error(v.loc, what + ": the range has more values than the point limit of " + std::to_string(limit));
      return std::nullopt;
    }
  }
  return axis;
}

}  // namespace

std::size_t SweepDimension::size() const {
  if (axes.empty()) return 1;
  if (axes.front().kind == SweepAxis::Kind::search) return 1;
  return axes.front().values.size();
}

bool SweepDimension::adaptive() const {
  for (const auto& a : axes)
    if (a.kind == SweepAxis::Kind::search) return true;
  return false;
}

std::vector<SweepDimension> parse_sweep(const SpecNode& sweep, std::uint64_t limit, Diagnostics& d,
                                        SweepOptions* options) {
  std::vector<SweepDimension> dims;
  if (sweep.is_null()) return dims;
  if (!sweep.is_map()) {
    d.error(sweep.loc, "sweep: expected a mapping of field: values (e.g. 'array.size: [16 KiB, 32 KiB]')");
    return dims;
  }
  std::set<std::string> fields;
  auto claim = [&](const std::string& field, const Location& loc) {
    if (!fields.insert(field).second) {
      d.error(loc, "sweep: field '" + field + "' is swept twice");
      return false;
    }
    return true;
  };
  for (const auto& e : sweep.entries) {
    if (e.key == "skip_invalid") {
      const bool yes = e.value.is_scalar() && (e.value.scalar == "true" || e.value.scalar == "yes");
      const bool no = e.value.is_scalar() && (e.value.scalar == "false" || e.value.scalar == "no");
      if (!yes && !no) d.error(e.value.loc, "sweep skip_invalid: expected true or false");
      if (options != nullptr) options->skip_invalid = yes;
      continue;
    }
    if (e.key == "zip") {
      const std::vector<SpecNode> groups =
          e.value.is_sequence() ? e.value.items : std::vector<SpecNode>{e.value};
      for (const auto& g : groups) {
        if (!g.is_map()) {
          d.error(g.loc, "sweep zip: each group is a mapping of fields to lists of equal length");
          continue;
        }
        SweepDimension dim;
        dim.loc = g.loc;
        std::string unit;
        if (const SpecNode* u = g.find("unit")) unit = u->is_scalar() ? u->scalar : "";
        bool ok = true;
        for (const auto& m : g.entries) {
          if (m.key == "unit") continue;
          if (!claim(m.key, m.key_loc)) {
            ok = false;
            continue;
          }
          auto axis = parse_axis(m.key, m.key_loc, m.value, unit, limit, d);
          if (!axis) {
            ok = false;
            continue;
          }
          if (axis->kind == SweepAxis::Kind::search) {
            d.error(m.key_loc, "sweep zip: an adaptive search cannot be zipped");
            ok = false;
            continue;
          }
          dim.axes.push_back(std::move(*axis));
        }
        if (!ok) continue;
        if (dim.axes.size() < 2) {
          d.error(g.loc, "sweep zip: a zip group needs at least two fields");
          continue;
        }
        for (const auto& a : dim.axes)
          if (a.values.size() != dim.axes.front().values.size()) {
            d.error(a.loc, "sweep zip: '" + a.field + "' has " + std::to_string(a.values.size()) + " values but '" +
                               dim.axes.front().field + "' has " + std::to_string(dim.axes.front().values.size()) +
                               "; zipped fields need the same number");
            ok = false;
          }
        if (ok) dims.push_back(std::move(dim));
      }
      continue;
    }
    if (!claim(e.key, e.key_loc)) continue;
    auto axis = parse_axis(e.key, e.key_loc, e.value, "", limit, d);
    if (!axis) continue;
    SweepDimension dim;
    dim.loc = e.key_loc;
    dim.axes.push_back(std::move(*axis));
    dims.push_back(std::move(dim));
  }
  std::size_t searches = 0;
  for (const auto& dim : dims) searches += dim.adaptive() ? 1 : 0;
  if (searches > 1) d.error(sweep.loc, "sweep: at most one axis can be an adaptive search");
  return dims;
}

std::uint64_t sweep_point_count(const std::vector<SweepDimension>& dims) {
  std::uint64_t total = 1;
  for (const auto& dim : dims) {
    const std::uint64_t n = dim.size();
    if (n != 0 && total > std::numeric_limits<std::uint64_t>::max() / n) return std::numeric_limits<std::uint64_t>::max();
    total *= n;
  }
  return total;
}

}  // namespace dissect
