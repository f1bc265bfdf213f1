#include "engine/spec/experiment_decoder.hpp"

#include "engine/spec/kernel_kinds.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <map>
#include <set>

#include "engine/spec/analysis_section.hpp"
#include "engine/spec/identifier.hpp"
#include "engine/spec/units.hpp"

namespace dissect {
namespace {

// Keys handled by the spec loader (spec.cpp), not by the experiment decoder.
const std::set<std::string> kFileLevelKeys{"dissect", "include", "sweep", "max_points"};

const std::vector<std::string> kTopKeys{
    "dissect", "include", "sweep", "max_points", "name", "description", "source", "abstract",
    "kernel", "target", "parallel", "path", "access", "element", "array", "iterations", "warmup", "warmup_by", "discard",
    "timing", "layout", "ilp", "carveout", "repeats", "max_samples", "arrays", "phases", "analyzers",
    "expect"};
const std::vector<std::string> kArrayKeys{"size", "stride", "offset", "page", "pattern", "indices", "seed", "frames"};
const std::vector<std::string> kTimingKeys{"mode", "clock", "unit"};
const std::vector<std::string> kLayoutKeys{"blocks", "threads", "chasers", "thread_offset", "array", "copy_stride"};
const std::vector<std::string> kPhaseArrayKeys{"path", "size", "stride", "offset", "pattern", "page", "seed"};
const std::vector<std::string> kPhaseKeys{"thread", "array", "action", "passes"};

// Hard limits that no spec may exceed.
constexpr std::uint64_t kMaxSamplesLimit = 1ull << 28;
constexpr std::uint64_t kConstantBankBytes = 64 * 1024;
constexpr std::uint64_t kSharedMemoryBytes = 256 * 1024;

// Reads one mapping, remembering which keys were used, so that every key the
// decoder did not ask for is reported (with a "did you mean").
class MapReader {
 public:
  MapReader(const SpecNode* node, std::string prefix, const std::vector<std::string>& allowed,
            Diagnostics& diags)
      : node_(node), prefix_(std::move(prefix)), diags_(diags) {
    if (node_ == nullptr || node_->is_null()) return;
    if (!node_->is_map()) {
      diags_.error(node_->loc, where() + "expected a mapping (key: value lines), got " + node_->kind_name());
      node_ = nullptr;
      return;
    }
    for (const auto& e : node_->entries) {
      if (std::find(allowed.begin(), allowed.end(), e.key) != allowed.end()) continue;
      std::string msg = "unknown key '" + prefix_ + e.key + "'";
      std::vector<std::string> candidates;
      for (const auto& a : allowed) candidates.push_back(a);
      const std::string guess = closest_match(e.key, candidates);
      if (!guess.empty()) msg += "; did you mean '" + prefix_ + guess + "'?";
      diags_.error(e.key_loc, msg);
    }
  }

  [[nodiscard]] const SpecNode* get(const std::string& key) const {
    if (node_ == nullptr) return nullptr;
    const SpecNode* v = node_->find(key);
    return (v == nullptr || v->is_null()) ? nullptr : v;
  }
  [[nodiscard]] const SpecNode* node() const { return node_; }
  [[nodiscard]] std::string name(const std::string& key) const { return prefix_ + key; }

 private:
  [[nodiscard]] std::string where() const {
    return prefix_.empty() ? std::string() : prefix_.substr(0, prefix_.size() - 1) + ": ";
  }
  const SpecNode* node_;
  std::string prefix_;
  Diagnostics& diags_;
};

bool expect_scalar(const SpecNode& n, const std::string& field, const std::string& what, Diagnostics& d) {
  if (n.is_scalar()) return true;
  d.error(n.loc, field + ": expected " + what + ", got " + n.kind_name());
  return false;
}

std::optional<std::string> read_string(const MapReader& r, const std::string& key, Diagnostics& d) {
  const SpecNode* n = r.get(key);
  if (n == nullptr) return std::nullopt;
  if (!expect_scalar(*n, r.name(key), "text", d)) return std::nullopt;
  return n->scalar;
}

std::optional<bool> parse_bool(const SpecNode& n, const std::string& field, Diagnostics& d) {
  if (!expect_scalar(n, field, "true or false", d)) return std::nullopt;
  const std::string& s = n.scalar;
  if (s == "true" || s == "yes" || s == "on") return true;
  if (s == "false" || s == "no" || s == "off") return false;
  d.error(n.loc, field + ": '" + s + "' is not true or false");
  return std::nullopt;
}

std::optional<std::uint64_t> parse_count_node(const SpecNode& n, const std::string& field, Diagnostics& d) {
  if (!expect_scalar(n, field, "a whole number", d)) return std::nullopt;
  std::string err;
  auto v = parse_count(n.scalar, err);
  if (!v) d.error(n.loc, field + ": " + err);
  return v;
}

// A count with bounds; reports out-of-range values.
template <typename T>
void read_count(const MapReader& r, const std::string& key, T& out, std::uint64_t min, std::uint64_t max,
                Diagnostics& d) {
  const SpecNode* n = r.get(key);
  if (n == nullptr) return;
  auto v = parse_count_node(*n, r.name(key), d);
  if (!v) return;
  if (*v < min) {
    d.error(n->loc, r.name(key) + " must be at least " + std::to_string(min) + ", got " + std::to_string(*v));
    return;
  }
  if (*v > max) {
    d.error(n->loc, r.name(key) + " must be at most " + std::to_string(max) + ", got " + std::to_string(*v));
    return;
  }
  out = static_cast<T>(*v);
}

// A quantity, resolved to bytes with the experiment's element size.
// `positive` rejects zero.
std::optional<std::uint64_t> read_bytes(const SpecNode* n, const std::string& field, std::uint64_t elem,
                                        bool positive, Diagnostics& d) {
  if (n == nullptr) return std::nullopt;
  if (!expect_scalar(*n, field, "a size such as '16 KiB'", d)) return std::nullopt;
  std::string err;
  auto q = parse_quantity(n->scalar, "", err);
  if (!q) {
    // A bare 0 needs no unit.
    if (n->scalar == "0") return positive ? (d.error(n->loc, field + " must be larger than zero"), std::nullopt)
                                          : std::optional<std::uint64_t>(0);
    d.error(n->loc, field + ": " + err);
    return std::nullopt;
  }
  const std::uint64_t bytes = q->bytes(elem);
  if (positive && bytes == 0) {
    d.error(n->loc, field + " must be larger than zero");
    return std::nullopt;
  }
  return bytes;
}

template <typename E>
std::optional<E> read_enum(const SpecNode* n, const std::string& field,
                           const std::vector<std::pair<std::string, E>>& names, Diagnostics& d) {
  if (n == nullptr) return std::nullopt;
  if (!expect_scalar(*n, field, "one of its names", d)) return std::nullopt;
  std::vector<std::string> all;
  for (const auto& [name, value] : names) {
    if (name == n->scalar) return value;
    all.push_back(name);
  }
  std::string msg = field + ": unknown value '" + n->scalar + "'";
  const std::string guess = closest_match(n->scalar, all);
  if (!guess.empty()) msg += "; did you mean '" + guess + "'?";
  msg += " (one of:";
  for (const auto& a : all) msg += " " + a;
  msg += ")";
  d.error(n->loc, msg);
  return std::nullopt;
}

const std::vector<std::pair<std::string, LoadPath>> kPaths{
    {"ca", LoadPath::ca},   {"cg", LoadPath::cg},   {"cs", LoadPath::cs},
    {"cv", LoadPath::cv},   {"lu", LoadPath::lu},   {"ldg", LoadPath::ldg},
    {"tex", LoadPath::tex}, {"const", LoadPath::constant}, {"shared", LoadPath::shared}};
const std::vector<std::pair<std::string, Access>> kAccess{{"load", Access::load}, {"store", Access::store}};
const std::vector<std::pair<std::string, ElementType>> kElements{{"u32", ElementType::u32},
                                                                 {"u64", ElementType::u64}};
const std::vector<std::pair<std::string, Frames>> kFrames{{"contiguous", Frames::contiguous},
                                                          {"scattered", Frames::scattered},
                                                          {"aliased", Frames::aliased}};
const std::vector<std::pair<std::string, Pattern>> kPatterns{{"sequential", Pattern::sequential},
                                                             {"random", Pattern::random},
                                                             {"list", Pattern::list},
                                                             {"page_strided", Pattern::page_strided},
                                                             {"page_random", Pattern::page_random}};
const std::vector<std::pair<std::string, TimingMode>> kModes{{"per_access", TimingMode::per_access},
                                                             {"chain", TimingMode::chain},
                                                             {"on_chip", TimingMode::on_chip}};
const std::vector<std::pair<std::string, WarmupBy>> kWarmupBy{{"chase", WarmupBy::chase}, {"block", WarmupBy::block}};
const std::vector<std::pair<std::string, BlockArrays>> kBlockArrays{{"shared", BlockArrays::shared},
                                                                    {"per_block", BlockArrays::per_block}};
const std::vector<std::pair<std::string, ClockSource>> kClocks{{"clock", ClockSource::clock},
                                                               {"clock64", ClockSource::clock64}};
// Kernel names, from the table of kinds (engine/spec/kernel_kinds.hpp).
const std::vector<std::pair<std::string, KernelKind>> kKernels = [] {
  std::vector<std::pair<std::string, KernelKind>> v;
  for (const auto& k : kernel_kinds()) v.emplace_back(std::string(k.name), k.kind);
  return v;
}();
const std::vector<std::pair<std::string, Target>> kTargets{
    {"auto", Target::automatic}, {"l1", Target::l1},         {"texture", Target::texture},
    {"readonly", Target::readonly}, {"constant", Target::constant}, {"constant_l15", Target::constant_l15},
    {"shared", Target::shared},  {"l2", Target::l2},         {"tlb", Target::tlb},
    {"dram", Target::dram}};

void decode_carveout(const SpecNode* n, Experiment& e, Diagnostics& d) {
  if (n == nullptr) return;
  if (!expect_scalar(*n, "carveout", "auto, max_l1, max_shared, default or a percentage", d)) return;
  std::string s = n->scalar;
  if (s == "auto") return;
  e.carveout_explicit = true;
  if (s == "max_l1") e.carveout = kCarveoutMaxL1;
  else if (s == "max_shared") e.carveout = kCarveoutMaxShared;
  else if (s == "default") e.carveout = kCarveoutDriverDefault;
  else {
    if (!s.empty() && s.back() == '%') s.pop_back();
    std::string err;
    auto v = parse_count(s, err);
    if (!v || *v > 100) {
      d.error(n->loc, "carveout: '" + n->scalar +
                          "' is not auto, max_l1, max_shared, default or a percentage 0..100 (of the unified "
                          "L1/shared storage given to shared memory)");
      e.carveout_explicit = false;
      return;
    }
    e.carveout = static_cast<int>(*v);
  }
}

// Decodes the array fields shared by the pchase array and the phases arrays.
// `zero_stride_ok`: the warp-access kernels read lane * stride, where stride 0
// (every lane on one word: a broadcast) is a meaningful point.
void decode_array_fields(const MapReader& r, ArraySpec& a, std::uint64_t elem, Diagnostics& d,
                         const std::string& prefix, bool zero_stride_ok = false) {
  if (auto p = read_enum(r.get("pattern"), prefix + "pattern", kPatterns, d)) a.pattern = *p;
  if (auto v = read_bytes(r.get("size"), prefix + "size", elem, true, d)) a.size_bytes = *v;
  if (auto v = read_bytes(r.get("stride"), prefix + "stride", elem, !zero_stride_ok, d)) a.stride_bytes = *v;
  if (auto v = read_bytes(r.get("offset"), prefix + "offset", elem, false, d)) a.offset_bytes = *v;
  if (auto v = read_bytes(r.get("page"), prefix + "page", elem, true, d)) a.page_bytes = *v;
  read_count(r, "seed", a.seed, 0, ~0ull, d);
}

// Checks of one array that need all its fields.
void check_array(const ArraySpec& a, const MapReader& r, std::uint64_t elem, const std::string& prefix,
                 bool size_required, const Location& fallback, Diagnostics& d) {
  auto loc = [&](const std::string& key) {
    const SpecNode* n = r.get(key);
    return n != nullptr ? n->loc : fallback;
  };
  if (size_required && a.size_bytes == 0 && r.get("size") == nullptr)
    d.error(fallback, prefix + "size is required (the array size N, e.g. 'size: 16 KiB')");
  for (const char* key : {"size", "stride", "offset", "page"}) {
    std::uint64_t v = key == std::string("size")     ? a.size_bytes
                      : key == std::string("stride") ? a.stride_bytes
                      : key == std::string("offset") ? a.offset_bytes
                                                     : a.page_bytes;
    if (r.get(key) != nullptr && v % elem != 0)
      d.error(loc(key), prefix + key + " (" + std::to_string(v) + " B) must be a whole number of elements (" +
                            std::to_string(elem) + " B each)");
  }
  const bool paged = a.pattern == Pattern::page_strided || a.pattern == Pattern::page_random;
  if (a.size_bytes != 0 && a.stride_bytes > a.size_bytes && !paged && a.pattern != Pattern::list)
    d.error(loc("stride"), prefix + "stride (" + format_bytes(a.stride_bytes) + ") is larger than the array size N (" +
                               format_bytes(a.size_bytes) + ")");
  if (a.size_bytes != 0 && a.offset_bytes >= a.size_bytes && r.get("offset") != nullptr)
    d.error(loc("offset"), prefix + "offset (" + format_bytes(a.offset_bytes) + ") is outside the array (" +
                               format_bytes(a.size_bytes) + ")");
  if (paged) {
    if (r.get("page") == nullptr)
      d.error(loc("pattern"), prefix + "pattern " + to_string(a.pattern) + " needs " + prefix +
                                  "page (e.g. 'page: 2 MiB')");
    else if (a.pattern == Pattern::page_strided && a.stride_bytes >= a.page_bytes)
      d.error(loc("stride"), prefix + "stride (" + format_bytes(a.stride_bytes) +
                                 ") must be smaller than the page (" + format_bytes(a.page_bytes) +
                                 ") with pattern page_strided: it is the offset step from page to page");
    else if (a.pattern == Pattern::page_random && (a.stride_bytes == 0 || a.stride_bytes > a.page_bytes))
      d.error(loc("stride"), prefix + "stride (" + format_bytes(a.stride_bytes) + ") must lie in (0, page = " +
                                 format_bytes(a.page_bytes) +
                                 "] with pattern page_random: the access in each page is at a random multiple of it");
    else if (a.size_bytes != 0 && a.page_bytes > a.size_bytes)
      d.error(loc("page"), prefix + "page (" + format_bytes(a.page_bytes) + ") is larger than the array (" +
                               format_bytes(a.size_bytes) + ")");
  } else if (r.get("page") != nullptr) {
    d.error(loc("page"), prefix + "page only applies to patterns page_strided and page_random (pattern is " +
                             to_string(a.pattern) + ")");
  }
  if (r.get("seed") != nullptr && a.pattern != Pattern::random && a.pattern != Pattern::page_random)
    d.error(loc("seed"), prefix + "seed only applies to patterns random and page_random (pattern is " +
                             to_string(a.pattern) + ")");
}

}  // namespace

bool is_file_level_key(const std::string& key) { return kFileLevelKeys.count(key) != 0; }

const std::vector<std::string>& known_field_paths() {
  static const std::vector<std::string> paths = [] {
    std::vector<std::string> out;
    for (const auto& k : kTopKeys)
      if (k != "array" && k != "timing" && k != "layout") out.push_back(k);
    for (const auto& k : kArrayKeys) out.push_back("array." + k);
    for (const auto& k : kTimingKeys) out.push_back("timing." + k);
    for (const auto& k : kLayoutKeys) out.push_back("layout." + k);
    return out;
  }();
  return paths;
}

Experiment decode_experiment(const SpecNode& root, Diagnostics& d) {
  Experiment e;
  if (!root.is_map()) {
    d.error(root.loc, "a spec must be a mapping of keys (name:, path:, array:, ...), got " + root.kind_name());
    return e;
  }
  MapReader top(&root, "", kTopKeys, d);

  if (auto v = read_string(top, "name", d)) {
    e.name = *v;
    if (const auto why = name_problem(e.name)) d.error(top.get("name")->loc, "name: " + *why);
  }
  if (auto v = read_string(top, "description", d)) e.description = *v;
  if (auto v = read_string(top, "source", d)) e.source = *v;
  if (const SpecNode* n = top.get("abstract"))
    if (auto b = parse_bool(*n, "abstract", d)) e.abstract = *b;
  if (auto v = read_enum(top.get("kernel"), "kernel", kKernels, d)) e.kernel = *v;
  if (auto v = read_enum(top.get("element"), "element", kElements, d)) e.element = *v;
  const bool path_given = top.get("path") != nullptr;
  if (auto v = read_enum(top.get("path"), "path", kPaths, d)) e.path = *v;
  const KernelKindInfo& kind = kernel_kind_info(e.kernel);
  if (!path_given && kind.only_path) e.path = *kind.only_path;
  if (auto v = read_enum(top.get("access"), "access", kAccess, d)) e.access = *v;
  if (auto v = read_enum(top.get("target"), "target", kTargets, d)) e.target = *v;
  if (const SpecNode* n = top.get("parallel"))
    if (auto b = parse_bool(*n, "parallel", d)) e.parallel = *b;
  const std::uint64_t elem = e.elem_bytes();

  // array
  MapReader array(top.get("array"), "array.", kArrayKeys, d);
  const bool warp_access = kind.warp_access;
  decode_array_fields(array, e.array, elem, d, "array.", warp_access);
  if (auto f = read_enum(array.get("frames"), "array.frames", kFrames, d)) e.array.frames = *f;
  if (e.array.stride_bytes == 0 && array.get("stride") == nullptr) e.array.stride_bytes = elem;
  if (const SpecNode* idx = array.get("indices")) {
    if (!idx->is_sequence()) {
      d.error(idx->loc, "array.indices: expected a list of offsets (e.g. [0 B, 128 B] or [0, 32] with unit elements)");
    } else {
      for (const auto& item : idx->items) {
        if (!expect_scalar(item, "array.indices", "an offset", d)) continue;
        std::string err;
        auto q = parse_quantity(item.scalar, "elements", err);
        if (!q) {
          d.error(item.loc, "array.indices: " + err);
          continue;
        }
        e.array.indices_bytes.push_back(q->bytes(elem));
      }
    }
  }

  read_count(top, "iterations", e.iterations, 1, kMaxSamplesLimit, d);
  read_count(top, "warmup", e.warmup, 0, 1u << 20, d);
  if (auto v = read_enum(top.get("warmup_by"), "warmup_by", kWarmupBy, d)) e.warmup_by = *v;
  read_count(top, "discard", e.discard, 0, 1u << 20, d);
  read_count(top, "ilp", e.ilp, 1, 64, d);
  read_count(top, "repeats", e.repeats, 1, 1u << 20, d);
  read_count(top, "max_samples", e.max_samples, 1, kMaxSamplesLimit, d);
  decode_carveout(top.get("carveout"), e, d);

  MapReader timing(top.get("timing"), "timing.", kTimingKeys, d);
  if (auto v = read_enum(timing.get("mode"), "timing.mode", kModes, d)) e.timing.mode = *v;
  if (auto v = read_enum(timing.get("clock"), "timing.clock", kClocks, d)) e.timing.clock = *v;
  read_count(timing, "unit", e.timing.unit, 1, 64, d);

  MapReader layout(top.get("layout"), "layout.", kLayoutKeys, d);
  read_count(layout, "blocks", e.layout.blocks, 1, 1u << 20, d);
  read_count(layout, "threads", e.layout.threads, 1, 1024, d);
  if (auto v = read_bytes(layout.get("thread_offset"), "layout.thread_offset", elem, false, d))
    e.layout.thread_offset_bytes = *v;
  if (auto v = read_enum(layout.get("array"), "layout.array", kBlockArrays, d)) e.layout.array = *v;
  if (const SpecNode* n = layout.get("copy_stride"); n != nullptr && !(n->is_scalar() && n->scalar == "auto"))
    if (auto v = read_bytes(n, "layout.copy_stride", elem, true, d)) e.layout.copy_stride_bytes = *v;
  if (const SpecNode* c = layout.get("chasers")) {
    if (c->is_scalar() && c->scalar == "all") {
      e.layout.chasers.clear();
      for (std::uint32_t t = 0; t < e.layout.threads; ++t) e.layout.chasers.push_back(t);
    } else if (c->is_scalar()) {
      // A number: the first k threads chase.
      if (auto k = parse_count_node(*c, "layout.chasers", d)) {
        if (*k == 0 || *k > e.layout.threads)
          d.error(c->loc, "layout.chasers: " + std::to_string(*k) + " chasing threads, but the block has " +
                              std::to_string(e.layout.threads) + " (layout.threads)");
        else {
          e.layout.chasers.clear();
          for (std::uint32_t t = 0; t < *k; ++t) e.layout.chasers.push_back(t);
        }
      }
    } else if (c->is_sequence()) {
      e.layout.chasers.clear();
      std::set<std::uint64_t> seen;
      for (const auto& item : c->items) {
        auto t = parse_count_node(item, "layout.chasers", d);
        if (!t) continue;
        if (*t >= e.layout.threads)
          d.error(item.loc, "layout.chasers: thread " + std::to_string(*t) + " does not exist (layout.threads is " +
                                std::to_string(e.layout.threads) + ")");
        else if (!seen.insert(*t).second)
          d.error(item.loc, "layout.chasers: thread " + std::to_string(*t) + " is listed twice");
        else
          e.layout.chasers.push_back(static_cast<std::uint32_t>(*t));
      }
    } else {
      d.error(c->loc, "layout.chasers: expected 'all', a count or a list of thread indices");
    }
  }

  // phases kernel
  if (const SpecNode* arrays = top.get("arrays")) {
    if (!arrays->is_map()) {
      d.error(arrays->loc, "arrays: expected a mapping of named arrays (e.g. 'a: {path: ca, size: 16 KiB}')");
    } else {
      for (const auto& entry : arrays->entries) {
        PhaseArray pa;
        pa.name = entry.key;
        const std::string prefix = "arrays." + entry.key + ".";
        MapReader ar(&entry.value, prefix, kPhaseArrayKeys, d);
        if (auto v = read_enum(ar.get("path"), prefix + "path", kPaths, d)) pa.path = *v;
        decode_array_fields(ar, pa.array, elem, d, prefix);
        if (ar.get("stride") == nullptr) pa.array.stride_bytes = elem;
        check_array(pa.array, ar, elem, prefix, true, entry.key_loc, d);
        e.arrays.push_back(std::move(pa));
      }
    }
  }
  if (const SpecNode* phases = top.get("phases")) {
    if (!phases->is_sequence()) {
      d.error(phases->loc, "phases: expected a list (e.g. '- {thread: 0, array: a, action: warm}')");
    } else {
      for (const auto& item : phases->items) {
        MapReader pr(&item, "phases[].", kPhaseKeys, d);
        Phase ph;
        read_count(pr, "thread", ph.thread, 0, 1023, d);
        read_count(pr, "passes", ph.passes, 1, 1u << 20, d);
        if (auto a = read_string(pr, "array", d)) {
          ph.array = *a;
          const bool known = std::any_of(e.arrays.begin(), e.arrays.end(),
                                         [&](const PhaseArray& x) { return x.name == *a; });
          if (!known) {
            std::vector<std::string> names;
            for (const auto& x : e.arrays) names.push_back(x.name);
            std::string msg = "phases: no array named '" + *a + "' under arrays:";
            const std::string guess = closest_match(*a, names);
            if (!guess.empty()) msg += "; did you mean '" + guess + "'?";
            d.error(pr.get("array")->loc, msg);
          }
        } else if (pr.node() != nullptr) {
          d.error(item.loc, "phases: each phase names its array ('array: a')");
        }
        if (auto act = read_enum(pr.get("action"), "phases[].action", std::vector<std::pair<std::string, Phase::Action>>{
                                                                   {"warm", Phase::Action::warm},
                                                                   {"measure", Phase::Action::measure}},
                                 d))
          ph.action = *act;
        if (ph.thread >= e.layout.threads && pr.get("thread") != nullptr)
          d.error(pr.get("thread")->loc, "phases: thread " + std::to_string(ph.thread) +
                                             " does not exist (layout.threads is " +
                                             std::to_string(e.layout.threads) + ")");
        e.phases.push_back(ph);
      }
    }
  }

  // analyzers: and expect:, decoded apart (dissect analyze reads them from a bundle's record).
  if (top.node() != nullptr) {
    AnalysisSection analysis = decode_analysis_section(*top.node(), d);
    e.analyzers = std::move(analysis.analyzers);
    e.expectations = std::move(analysis.expectations);
  }

  // ---- checks that need the whole experiment --------------------------------
  if (e.abstract) return e;  // a base file: partial by design
  const Location root_loc = root.loc;
  auto loc_of = [&](const SpecNode* n) { return n != nullptr ? n->loc : root_loc; };

  if (e.target == Target::automatic) e.target = default_target(e.path);
  // auto: the SM-private targets and blocks with arrays of their own (kept on SMs of their
  // own through the shared configuration) ask for the most L1; the rest leave it to the driver.
  if (!e.carveout_explicit)
    e.carveout = is_sm_private(e.target) || e.layout.array == BlockArrays::per_block ? kCarveoutMaxL1
                                                                                    : kCarveoutDriverDefault;

  const std::string kernel_name(kind.name);
  if (kind.named_arrays) {
    if (e.arrays.empty())
      d.error(root_loc, "kernel " + kernel_name + " needs 'arrays:' (the named arrays it warms and measures)");
    if (e.phases.empty()) d.error(root_loc, "kernel " + kernel_name + " needs 'phases:' (the ordered warm/measure steps)");
    if (std::none_of(e.phases.begin(), e.phases.end(),
                     [](const Phase& p) { return p.action == Phase::Action::measure; }) &&
        !e.phases.empty())
      d.error(top.get("phases")->loc, "phases: no phase measures anything (add 'action: measure')");
  } else {
    if (top.get("arrays") != nullptr)
      d.error(top.get("arrays")->loc, "arrays: only the " + kernel_kind_names(&KernelKindInfo::named_arrays) +
                                          " kernel uses named arrays (kernel is " + kernel_name +
                                          "); use 'array:' instead");
    if (top.get("phases") != nullptr)
      d.error(top.get("phases")->loc, "phases: only the " + kernel_kind_names(&KernelKindInfo::named_arrays) +
                                          " kernel has phases (kernel is " + kernel_name + ")");
    check_array(e.array, array, elem, "array.", true, top.get("array") ? top.get("array")->loc : root_loc, d);
  }

  if (e.array.frames != Frames::contiguous &&
      (e.kernel != KernelKind::pchase || e.path == LoadPath::tex || e.path == LoadPath::constant ||
       e.path == LoadPath::shared))
    d.error(loc_of(array.get("frames")), std::string("array.frames ") + to_string(e.array.frames) +
                                             " applies to a pointer chase on a global load path (kernel is " +
                                             to_string(e.kernel) + ", path " + to_string(e.path) + ")");
  if (e.warmup_by == WarmupBy::block) {
    // The block loads the slots (offset + k s) mod N of one pass: the lines a sequential or
    // random chase visits, whichever chaser; other patterns visit slots it cannot list.
    const SpecNode* at = top.get("warmup_by");
    if (e.kernel != KernelKind::pchase)
      d.error(loc_of(at), "warmup_by: block applies to kernel pchase (kernel is " + kernel_name + ")");
    else if (e.array.pattern != Pattern::sequential && e.array.pattern != Pattern::random)
      d.error(loc_of(at), std::string("warmup_by: block needs array.pattern sequential or random, whose pass the block "
                                      "can load slot by slot (pattern is ") +
                              to_string(e.array.pattern) + ")");
    else if (e.path == LoadPath::shared)
      d.error(loc_of(at), "warmup_by: block applies to a load path into memory (path shared copies the array into "
                          "shared memory: nothing to warm)");
    else if (e.array.stride_bytes != 0 && e.layout.thread_offset_bytes % e.array.stride_bytes != 0)
      d.error(loc_of(at), "warmup_by: block needs layout.thread_offset to be a multiple of array.stride (every "
                          "chaser then starts on a slot the block loads)");
    else if (e.array.pattern == Pattern::random && e.layout.thread_offset_bytes != 0 &&
             e.layout.blocks * e.layout.chasers.size() > 1 && e.array.stride_bytes != 0 &&
             e.array.size_bytes % e.array.stride_bytes != 0)
      d.error(loc_of(at), "warmup_by: block with a random pattern and chasers layout.thread_offset apart needs "
                          "array.size to be a multiple of array.stride (a chaser started past the last whole "
                          "slot would begin on a line the block did not load)");
    else if (e.warmup == 0)
      d.error(loc_of(at), "warmup_by: block with warmup: 0 warms nothing (give warmup: 1 or more passes)");
  }
  if (e.layout.array == BlockArrays::per_block) {
    // Copies of one array, one per block, placed apart: a chase through a global path
    // (a texture object, the constant bank and shared memory hold one array each).
    const SpecNode* at = layout.get("array");
    if (e.kernel != KernelKind::pchase)
      d.error(loc_of(at), "layout.array: per_block applies to kernel pchase (kernel is " + kernel_name + ")");
    else if (e.path == LoadPath::tex || e.path == LoadPath::constant || e.path == LoadPath::shared)
      d.error(loc_of(at), std::string("layout.array: per_block needs a global load path (path ") + to_string(e.path) +
                              " reads one texture, constant or shared array per launch)");
    else if (e.carveout < 0)
      d.error(loc_of(at), "layout.array: per_block keeps its blocks on SMs of their own through the shared-memory "
                          "configuration; carveout default leaves that to the driver (give auto, max_l1, max_shared or a "
                          "percentage)");
  }
  if (const SpecNode* at = layout.get("copy_stride"); at != nullptr && e.layout.copy_stride_bytes != 0) {
    // Copies never overlap and never share a line (a line read by two SMs is what
    // per_block exists to avoid).
    if (e.layout.array != BlockArrays::per_block)
      d.error(at->loc, "layout.copy_stride places the blocks' copies of the array: it needs layout.array: per_block");
    else if (e.layout.copy_stride_bytes % kCopyStrideAlign != 0)
      d.error(at->loc, "layout.copy_stride (" + format_bytes(e.layout.copy_stride_bytes) + ") must be a multiple of " +
                           std::to_string(kCopyStrideAlign) + " B (copies never share a line)");
    else if (e.array.size_bytes != 0 && e.layout.copy_stride_bytes < e.array.size_bytes)
      d.error(at->loc, "layout.copy_stride (" + format_bytes(e.layout.copy_stride_bytes) +
                           ") is smaller than array.size (" + format_bytes(e.array.size_bytes) +
                           "): the blocks' copies would overlap");
  }
  if (e.array.pattern == Pattern::list && e.array.indices_bytes.empty() && !kind.named_arrays)
    d.error(loc_of(array.get("pattern")), "array.pattern list needs array.indices (the offsets to visit, in order)");
  if (e.array.pattern != Pattern::list && array.get("indices") != nullptr)
    d.error(array.get("indices")->loc, std::string("array.indices only applies to pattern list (pattern is ") +
                                           to_string(e.array.pattern) + ")");
  for (std::size_t i = 0; i < e.array.indices_bytes.size(); ++i) {
    const auto off = e.array.indices_bytes[i];
    if (off % elem != 0 || (e.array.size_bytes != 0 && off >= e.array.size_bytes)) {
      d.error(array.get("indices")->items[i].loc, "array.indices: offset " + std::to_string(off) +
                                                       " B is not an element inside the array (N = " +
                                                       format_bytes(e.array.size_bytes) + ")");
    }
  }

  if (warp_access && e.array.size_bytes != 0 &&
      static_cast<std::uint64_t>(e.layout.threads - 1) * e.array.stride_bytes + elem > e.array.size_bytes)
    d.error(loc_of(array.get("stride")),
            "array.stride (" + format_bytes(e.array.stride_bytes) + ") x " + std::to_string(e.layout.threads - 1) +
                " lanes reaches beyond the array (N = " + format_bytes(e.array.size_bytes) +
                "): the warp's last lane would read outside it");
  if (e.path == LoadPath::constant && e.array.size_bytes > kConstantBankBytes)
    d.error(loc_of(array.get("size")), "array.size (" + format_bytes(e.array.size_bytes) +
                                           ") exceeds the 64 KiB constant bank that path const reads from");
  if (e.path == LoadPath::shared && e.array.size_bytes > kSharedMemoryBytes)
    d.error(loc_of(array.get("size")), "array.size (" + format_bytes(e.array.size_bytes) +
                                           ") exceeds any GPU's shared memory per block (at most 256 KiB)");
  if (kind.only_path && e.path != *kind.only_path)
    d.error(loc_of(top.get("path")), "kernel " + kernel_name + " reads " +
                                         (*kind.only_path == LoadPath::shared ? std::string("shared memory")
                                                                              : "path " + std::string(to_string(*kind.only_path))) +
                                         "; path must be " + to_string(*kind.only_path) + " (is " + to_string(e.path) + ")");
  if (e.access == Access::store) {
    if (!kind.stores)
      d.error(loc_of(top.get("access")), "access: store only applies to kernel " +
                                             kernel_kind_names(&KernelKindInfo::stores) + " (kernel is " + kernel_name +
                                             ")");
    else if (store_operator(e.path) == nullptr)
      d.error(loc_of(top.get("path") != nullptr ? top.get("path") : top.get("access")),
              std::string("path ") + to_string(e.path) +
                  " has no store: with access: store, path is ca (st.global.wb), cg (st.global.cg), cs "
                  "(st.global.cs), cv (st.global.wt) or shared (st.shared)");
  }
  if (const SpecNode* u = timing.get("unit")) {
    if (e.timing.mode != TimingMode::on_chip)
      d.error(u->loc, std::string("timing.unit applies to timing.mode on_chip (the cycles one recorded byte counts); "
                                  "timing.mode is ") + to_string(e.timing.mode));
    else if ((e.timing.unit & (e.timing.unit - 1)) != 0)
      d.error(u->loc, "timing.unit must be a power of two (1, 2, 4, .., 64), got " + std::to_string(e.timing.unit));
  }
  if (e.timing.mode != TimingMode::per_access && !kind.chain_timing)
    d.error(loc_of(timing.get("mode")), std::string("timing.mode ") + to_string(e.timing.mode) + " only applies to kernel " +
                                            kernel_kind_names(&KernelKindInfo::chain_timing) + " (kernel is " +
                                            kernel_name + ")");
  if (e.layout.threads == 1 && layout.get("chasers") == nullptr) e.layout.chasers = {0};
  for (auto t : e.layout.chasers)
    if (t >= e.layout.threads && layout.get("chasers") == nullptr)
      d.error(loc_of(layout.get("threads")), "layout.threads is smaller than the chasing threads");

  if (e.timing.mode == TimingMode::on_chip &&
      e.iterations * e.layout.chasers.size() > kSharedMemoryBytes)
    d.error(loc_of(top.get("iterations")),
            "iterations: timing.mode on_chip keeps one byte per timed access of every chasing thread in shared "
            "memory: " + std::to_string(e.iterations) + " x " + std::to_string(e.layout.chasers.size()) +
                " B exceeds any GPU's shared memory per block (at most 256 KiB)");
  if (e.discard > 0 && e.timing.mode != TimingMode::chain &&
      static_cast<std::uint64_t>(e.discard) * e.accesses_per_pass() >= e.iterations)
    d.error(loc_of(top.get("discard")),
            "discard: " + std::to_string(e.discard) + " pass(es) of " + std::to_string(e.accesses_per_pass()) +
                " accesses would drop all " + std::to_string(e.iterations) + " timed accesses (iterations)");

  if (e.samples_per_point() > e.max_samples) {
    const std::string how = kind.samples_formula != nullptr ? kind.samples_formula(e) : "";
    d.error(loc_of(top.get("iterations")),
            std::string("iterations: ") + how + std::to_string(e.samples_per_point()) + " samples per " +
                to_string(e.kernel) + " point, more than the sample buffer allows (max_samples = " +
                std::to_string(e.max_samples) + ")");
  }
  return e;
}

}  // namespace dissect
