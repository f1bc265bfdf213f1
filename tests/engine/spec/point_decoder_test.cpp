// The point decoder: one working tree for all points must decode exactly what a
// fresh copy of the tree per point decodes, and leave the tree as it found it.
#include <doctest/doctest.h>

#include <functional>

#include "engine/spec/point_params.hpp"
#include "engine/spec/experiment_decoder.hpp"
#include "engine/spec/point_decoder.hpp"

using namespace dissect;

namespace {

// How points were decoded before the decoder: a deep copy of the tree per point.
Point decode_copy(const Spec& spec, std::size_t id, const std::vector<AxisValueRef>& values) {
  SpecNode tree = spec.root;
  tree.erase("sweep");
  Point p;
  p.id = id;
  for (const AxisValueRef& v : values) {
    if (!tree.set_path(*v.field, *v.value, v.value->loc))
      throw SpecError(v.value->loc, "sweep: '" + *v.field +
                                        "' does not name a field of this spec (a list index out of "
                                        "range, or a part of it is not a mapping)");
    p.axis_values.emplace_back(*v.field, v.value->scalar);
  }
  Diagnostics d;
  p.experiment = decode_experiment(tree, d);
  if (p.experiment.name.empty()) p.experiment.name = spec.base.name;
  if (!d.empty()) throw SpecError(d);
  return p;
}

// Everything a point's bundle row and run depend on, as text.
std::string describe(const Point& p) {
  std::string s = std::to_string(p.id) + " " + p.experiment.name + " " + p.experiment.description;
  for (const auto& [f, v] : p.axis_values) s += " " + f + "=" + v;
  for (const auto& [k, v] : point_params(p)) s += " " + k + "=" + v;
  for (const auto& a : p.experiment.arrays) s += " array " + a.name;
  for (const auto& ph : p.experiment.phases) s += " phase " + ph.array + std::to_string(ph.thread);
  for (const auto& a : p.experiment.analyzers) s += " analyzer " + a.name + a.params_json;
  for (const auto& x : p.experiment.expectations) s += " expect " + x.text;
  s += " warp " + std::to_string(p.experiment.max_samples) + " " + std::to_string(p.experiment.parallel);
  return s;
}

std::string error_of(const std::function<Point()>& f) {
  try {
    (void)f();
    return "";
  } catch (const SpecError& e) {
    return e.diagnostics().str();
  }
}

// Every combination of the spec's sweep, as references into it.
std::vector<std::vector<AxisValueRef>> combinations(const Spec& spec) {
  std::vector<std::vector<AxisValueRef>> out(1);
  for (const auto& dim : spec.sweep) {
    std::vector<std::vector<AxisValueRef>> next;
    for (const auto& prefix : out)
      for (std::size_t i = 0; i < dim.size(); ++i) {
        auto c = prefix;
        for (const auto& axis : dim.axes) c.push_back({&axis.field, &axis.values[i]});
        next.push_back(std::move(c));
      }
    out = std::move(next);
  }
  return out;
}

}  // namespace

TEST_CASE("the point decoder decodes every point as a fresh copy of the tree would") {
  // Axes that replace a value inside a mapping, create a mapping the spec lacks
  // (layout), add a top-level key (warmup), index a list (phases.1.thread) and
  // go through one top-level entry twice (array.size, array.stride).
  const char* specs[] = {
      "dissect: 1\nname: a\ndescription: sizes and strides\narray: {size: 4 KiB, stride: 4 B}\niterations: 64\n"
      "analyzers: [summary]\nexpect: [\"summary > 1\"]\n"
      "sweep:\n  array.size: [4 KiB, 8 KiB, 16 KiB]\n  array.stride: [4 B, 64 B]\n  layout.threads: [1, 32]\n"
      "  warmup: [0, 2]\n",
      "dissect: 1\nkernel: phases\ntarget: l1\nlayout: {threads: 64, chasers: all}\n"
      "arrays:\n  a: {path: ca, size: 16 KiB, stride: 128 B}\n  b: {path: tex, size: 32 KiB, stride: 128 B}\n"
      "phases:\n  - {thread: 0, array: a, action: warm}\n  - {thread: 0, array: a, action: measure}\n"
      "sweep:\n  arrays.b.path: [tex, ldg]\n  phases.1.thread: [0, 33]\n",
      "dissect: 1\narray: {size: 1 KiB}\nsweep:\n  zip:\n    - {array.size: [1, 2, 4], array.stride: [1, 1, 2], "
      "unit: KiB}\n",
  };
  for (const char* text : specs) {
    CAPTURE(text);
    const Spec spec = load_spec_text(text, "points.yaml");
    PointDecoder decoder(spec.root, spec.base.name);
    const auto all = combinations(spec);
    REQUIRE(all.size() == spec.point_count());
    auto same = [&](std::size_t i) {
      CHECK(describe(decoder.decode(i, all[i])) == describe(decode_copy(spec, i, all[i])));
    };
    for (std::size_t i = 0; i < all.size(); ++i) same(i);
    // And once more in reverse: no point leaves anything behind for the next.
    for (std::size_t i = all.size(); i-- > 0;) same(i);
    const std::vector<AxisValueRef> none;
    CHECK(describe(decoder.decode(0, none)) == describe(decode_copy(spec, 0, none)));
  }
}

TEST_CASE("a point that fails leaves the decoder's tree as it was, and fails as a fresh copy does") {
  const Spec spec = load_spec_text("dissect: 1\narray: {size: 1 KiB, stride: 4 B}\n", "f.yaml");
  PointDecoder decoder(spec.root, spec.base.name);
  const std::string size = "array.size", stride = "array.stride", threads = "layout.threads", bad = "array.size.x";
  const SpecNode big = SpecNode::make_scalar("64 KiB", {"v", 1, 1}), wide = SpecNode::make_scalar("8 KiB", {"v", 2, 1}),
                 tiny = SpecNode::make_scalar("2 B", {"v", 3, 5}), many = SpecNode::make_scalar("64", {"v", 4, 1});
  // A value the decoder rejects (stride larger than the array), after a value that set fine.
  const std::vector<AxisValueRef> rejected{{&threads, &many}, {&stride, &wide}};
  const std::string e1 = error_of([&] { return decoder.decode(1, rejected); });
  CHECK(e1.find("stride") != std::string::npos);
  CHECK(e1 == error_of([&] { return decode_copy(spec, 1, rejected); }));
  // A field that cannot be set: array.size is a value, not a mapping.
  const std::vector<AxisValueRef> unsettable{{&size, &big}, {&bad, &tiny}};
  const std::string e2 = error_of([&] { return decoder.decode(2, unsettable); });
  CHECK(e2.find("does not name a field") != std::string::npos);
  CHECK(e2 == error_of([&] { return decode_copy(spec, 2, unsettable); }));
  // Nothing of either stayed: the next point sees the spec's own values.
  const Point p = decoder.decode(3, std::vector<AxisValueRef>{{&size, &big}});
  CHECK(p.experiment.array.size_bytes == 64 * 1024);
  CHECK(p.experiment.array.stride_bytes == 4);
  CHECK(p.experiment.layout.threads == 1);
  CHECK(describe(p) == describe(decode_copy(spec, 3, {{&size, &big}})));
}

TEST_CASE("make_point decodes one point from explicit values, the sweep left out") {
  const Spec spec = load_spec_text("dissect: 1\narray: {size: 1 KiB}\nsweep:\n  iterations: [8, 16]\n", "s.yaml");
  const Point p = spec.make_point(5, {{"iterations", SpecNode::make_scalar("32", {"x", 1, 1})}});
  CHECK(p.id == 5);
  CHECK(p.experiment.iterations == 32);
  CHECK(p.experiment.name == "s");
  REQUIRE(p.axis_values.size() == 1);
  CHECK(p.axis_values[0] == std::pair<std::string, std::string>{"iterations", "32"});
}
