#include "engine/topology/accelsim_config.hpp"

#include <fmt/format.h>

#include <cmath>
#include <optional>

#include "engine/report/report_format.hpp"

namespace dissect {
namespace {

using json = nlohmann::json;

bool is_pow2(std::uint64_t v) { return v != 0 && (v & (v - 1)) == 0; }

// "241 KiB", "183.5 KiB", "23.25 MiB": the largest binary unit, to 6 significant digits.
std::string bytes_text(std::uint64_t b) { return report::binary_size_text(static_cast<double>(b)); }

std::optional<std::uint64_t> positive(const std::optional<double>& v) {
  if (!v || !(*v > 0) || !std::isfinite(*v)) return std::nullopt;
  return static_cast<std::uint64_t>(std::llround(*v));
}

// The latency a cache's hits take: timer-corrected when the topology has it.
std::optional<double> latency_of(const TopologyFile& t, const std::string& cache) {
  if (auto v = t.cache_number(cache, "latency_corrected_cycles"); v && *v > 0) return v;
  if (auto v = t.cache_number(cache, "latency_cycles"); v && *v > 0) return v;
  return std::nullopt;
}

// The topology.json key latency_of read, for the comment that cites it.
std::string latency_key(const TopologyFile& t, const std::string& cache) {
  const auto v = t.cache_number(cache, "latency_corrected_cycles");
  return "caches." + cache + (v && *v > 0 ? ".latency_corrected_cycles" : ".latency_cycles");
}

std::string cycles_text(double c) { return fmt::format("{:.1f} cycles", c); }

// A cache's replacement letter: L (LRU) or F (FIFO), the only two the format has.
char replacement_letter(const TopologyFile& t, const std::string& cache, std::vector<std::string>& comments) {
  const auto r = t.cache_string(cache, "replacement");
  if (!r) {
    comments.push_back("replacement L (LRU) [default: not measured]");
    return 'L';
  }
  if (*r == "lru") {
    comments.push_back("replacement L: measured LRU (caches." + cache + ".replacement)");
    return 'L';
  }
  if (*r == "fifo") {
    comments.push_back("replacement F: measured FIFO (caches." + cache + ".replacement)");
    return 'F';
  }
  comments.push_back("replacement L (LRU) [default]: measured '" + *r +
                     "', which the format cannot express (it has L = LRU and F = FIFO)");
  return 'L';
}

struct CacheDefaults {
  std::uint64_t line = 128;
  std::uint64_t size = 32 * 1024;
};

// The geometry of a per-SM cache: size and line as measured, sets and ways where
// measured and expressible, else a stated split that keeps the measured size.
AccelSimGeometry cache_geometry(const TopologyFile& t, const std::string& cache, const CacheDefaults& d,
                                std::vector<std::string>& comments, bool sectors_allowed = true) {
  AccelSimGeometry g;
  const std::string key = "caches." + cache;
  if (auto line = positive(t.cache_number(cache, "line_bytes")); line && is_pow2(*line)) {
    g.line = *line;
    g.line_measured = true;
    std::string how = t.cache_string(cache, "line_method") ? " by occupancy" : "";
    comments.push_back(fmt::format("line {} B: measured{} ({}.line_bytes)", g.line, how, key));
  } else {
    g.line = d.line;
    comments.push_back(fmt::format("line {} B [default: {}]", g.line,
                                   line ? fmt::format("measured {} B is no power of two", *line)
                                        : std::string("not measured")));
  }
  std::uint64_t size = d.size;
  if (auto s = positive(t.cache_number(cache, "size_bytes"))) {
    size = *s;
    g.size_measured = true;
    comments.push_back(fmt::format("size {} ({} B): measured ({}.size_bytes)", bytes_text(size), size, key));
  } else if (auto note = t.cache_string(cache, "size_note")) {
    comments.push_back(fmt::format("size {} [default]: the topology leaves it undetermined: {}", bytes_text(size),
                                   *note));
  } else {
    comments.push_back(fmt::format("size {} [default: not measured]", bytes_text(size)));
  }
  const auto fetch = positive(t.cache_number(cache, "fetch_bytes"));
  g.sector = g.line == 128 && fetch && *fetch == 32;
  if (g.sector && !sectors_allowed) {
    g.sector = false;
    comments.push_back("normal lines (N): measured fetch granularity 32 B of 128 B lines, but the format's texture "
                       "cache has no sectors");
  } else if (g.sector)
    comments.push_back("sector cache (S): measured fetch granularity 32 B of 128 B lines (" + key +
                       ".fetch_bytes), the format's 4 x 32 B sectors");
  else if (fetch)
    comments.push_back(fmt::format("normal lines (N): the measured fetch granularity {} B of {} B lines is not the "
                                   "format's fixed 4 x 32 B sectors",
                                   *fetch, g.line));
  else
    comments.push_back("normal lines (N) [default: fetch granularity not measured]");

  std::uint64_t lines = size / g.line;
  if (lines == 0) lines = 1;
  if (size % g.line != 0)
    comments.push_back(fmt::format("the size is not a whole number of lines: {} lines of {} B ({} B)", lines, g.line,
                                   lines * g.line));
  const auto sets = positive(t.cache_number(cache, "sets"));
  const auto ways = t.cache_number(cache, "ways");
  bool done = false;
  if (sets && ways) {
    const bool whole = std::fabs(*ways - std::round(*ways)) < 1e-9 && *ways >= 1;
    const auto w = static_cast<std::uint64_t>(std::llround(*ways));
    if (whole && is_pow2(*sets) && *sets * w == lines) {
      g.sets = *sets;
      g.ways = w;
      g.sets_measured = g.ways_measured = true;
      comments.push_back(fmt::format("{} sets x {} ways: measured ({}.sets, .ways)", g.sets, g.ways, key));
      done = true;
    } else {
      comments.push_back(fmt::format("measured {} sets x {} ways cannot be written as they are ({}): not used", *sets,
                                     *ways,
                                     !whole            ? "ways differ between sets"
                                     : !is_pow2(*sets) ? "the linear set index needs a power-of-two set count"
                                                       : "sets x ways x line is not the size"));
    }
  } else if (auto note = t.cache_string(cache, "sets_note")) {
    comments.push_back("sets and ways not claimed by the topology: " + *note);
  }
  if (!done) {
    g.sets = 1;
    for (std::uint64_t s : {4u, 2u})
      if (lines % s == 0) {
        g.sets = s;
        break;
      }
    g.ways = lines / g.sets;
    comments.push_back(fmt::format("{} sets [default: not measured; a power of two, as the linear set index needs], "
                                   "{} ways = {} lines / {} sets (keeps the size)",
                                   g.sets, g.ways, lines, g.sets));
  }
  return g;
}

std::string geometry_text(const AccelSimGeometry& g) {
  return fmt::format("{}:{}:{}:{}", g.sector ? 'S' : 'N', g.sets, g.line, g.ways);
}

AccelSimOption option(std::string name, std::string value, std::vector<std::string> comments, bool measured) {
  return AccelSimOption{std::move(name), std::move(value), std::move(comments), measured};
}

// The L2: GPGPU-Sim models it per memory sub-partition (n_mem channels x
// sub-partitions each); the topology has its size (the driver's, and the part one
// SM fills), line, fetch granularity and, on some GPUs, sets and ways.
struct L2Choice {
  AccelSimGeometry g;
  std::uint64_t n_mem = 1, per_channel = 2;
  std::vector<std::string> comments, channel_comments;
};

L2Choice l2_choice(const TopologyFile& t) {
  L2Choice c;
  AccelSimGeometry& g = c.g;
  if (auto line = positive(t.cache_number("l2", "line_bytes")); line && is_pow2(*line)) {
    g.line = *line;
    g.line_measured = true;
    c.comments.push_back(fmt::format("line {} B: measured (caches.l2.line_bytes)", g.line));
  } else {
    g.line = 128;
    c.comments.push_back("line 128 B [default: not measured]");
  }
  const auto fetch = positive(t.cache_number("l2", "fetch_bytes"));
  g.sector = g.line == 128 && fetch && *fetch == 32;
  if (g.sector)
    c.comments.push_back("sector cache (S): measured fetch granularity 32 B of 128 B lines");
  else if (fetch)
    c.comments.push_back(fmt::format("normal lines (N): the measured fetch granularity {} B of {} B lines is not the "
                                     "format's fixed 4 x 32 B sectors",
                                     *fetch, g.line));
  else
    c.comments.push_back("normal lines (N) [default: fetch granularity not measured]");

  // The whole L2: the driver's figure where there is one; else the measured size,
  // times the partitions where one SM sees one partition's worth (near/far levels).
  std::uint64_t total = 4ull << 20;
  // What one SM fills: one_sm_bytes, or size_bytes in files written before the L2's
  // size_bytes became the whole GPU's.
  auto measured = positive(t.cache_number("l2", "one_sm_bytes"));
  if (!measured) measured = positive(t.cache_number("l2", "size_bytes"));
  std::size_t levels = 0;
  if (t.topology["caches"].contains("l2") && t.topology["caches"]["l2"].contains("hit_levels_cycles") &&
      t.topology["caches"]["l2"]["hit_levels_cycles"].is_array())
    levels = t.topology["caches"]["l2"]["hit_levels_cycles"].size();
  auto driver = positive(t.cache_number("l2", "driver_size_bytes"));
  if (!driver) driver = positive(t.device_number("l2_bytes"));
  if (driver) {
    total = *driver;
    c.comments.push_back(fmt::format(
        "size {} in all ({} B): reported by the driver{}", bytes_text(total), total,
        measured ? fmt::format("; measured from one SM: {} (caches.l2.one_sm_bytes, one partition's worth)",
                               bytes_text(*measured))
                 : std::string("; not measured")));
  } else if (measured) {
    g.size_measured = true;
    const std::uint64_t parts = levels >= 2 ? levels : 1;
    total = *measured * parts;
    c.comments.push_back(
        parts > 1 ? fmt::format("size {} in all: measured {} from one SM (caches.l2.one_sm_bytes) x {} partitions "
                                "(the near/far hit levels: one SM fills its partition)",
                                bytes_text(total), bytes_text(*measured), parts)
                  : fmt::format("size {} ({} B): measured (caches.l2.one_sm_bytes)", bytes_text(total), total));
  } else {
    c.comments.push_back(fmt::format("size {} [default: not measured]", bytes_text(total)));
  }
  const std::uint64_t lines = std::max<std::uint64_t>(1, total / g.line);

  // Sets and ways where measured (for the whole L2), else ways from a list of
  // defaults; channels: the first count that splits the lines into whole,
  // power-of-two sets per sub-partition.
  const auto sets = positive(t.cache_number("l2", "sets"));
  const auto ways = t.cache_number("l2", "ways");
  std::optional<std::uint64_t> measured_ways;
  if (sets && ways && std::fabs(*ways - std::round(*ways)) < 1e-9 && *ways >= 1 &&
      *sets * static_cast<std::uint64_t>(std::llround(*ways)) == lines)
    measured_ways = static_cast<std::uint64_t>(std::llround(*ways));
  else if (sets && ways)
    c.comments.push_back(fmt::format("measured {} sets x {} ways do not split into the format's equal sets: not used",
                                     *sets, *ways));
  else if (auto note = t.cache_string("l2", "sets_note"))
    c.comments.push_back("sets and ways not claimed by the topology: " + *note);

  std::vector<std::uint64_t> way_options;
  if (measured_ways)
    way_options = {*measured_ways};
  else
    way_options = {16, 20, 24, 32, 12, 10, 8, 25, 30, 15, 6, 5, 4, 3, 2, 1};
  std::vector<std::uint64_t> channel_options;
  if (auto bus = positive(t.device_number("memory_bus_width_bits")); bus && *bus % 64 == 0)
    channel_options.push_back(*bus / 64);
  for (std::uint64_t n : {32u, 40u, 48u, 64u, 80u, 96u, 16u, 24u, 12u, 8u, 6u, 4u, 2u, 1u}) channel_options.push_back(n);
  bool found = false;
  for (std::uint64_t w : way_options) {
    for (std::uint64_t n : channel_options) {
      const std::uint64_t per = n * c.per_channel * w;
      if (lines % per != 0 || !is_pow2(lines / per)) continue;
      g.ways = w;
      g.sets = lines / per;
      c.n_mem = n;
      found = true;
      break;
    }
    if (found) break;
  }
  if (!found) {  // one set per sub-partition of one channel always divides
    c.n_mem = 1;
    c.per_channel = 1;
    g.sets = 1;
    g.ways = lines;
  }
  g.sets_measured = g.ways_measured = measured_ways.has_value();
  if (measured_ways)
    c.comments.push_back(fmt::format("{} ways: measured ({} sets in all = {} per sub-partition)", g.ways, *sets,
                                     g.sets));
  else
    c.comments.push_back(fmt::format("{} ways [default: not measured], {} sets per sub-partition = {} lines / ({} "
                                     "sub-partitions x {} ways): a power of two, as the set index needs",
                                     g.ways, g.sets, lines, c.n_mem * c.per_channel, g.ways));
  c.channel_comments.push_back(fmt::format(
      "{} memory channels x {} sub-partitions [default: not measured; the first count that splits the L2 into "
      "whole, power-of-two sets per sub-partition]",
      c.n_mem, c.per_channel));
  return c;
}

}  // namespace

AccelSimConfig accelsim_config(const TopologyFile& t) {
  AccelSimConfig cfg;
  const auto sms = positive(t.device_number("sm_count"));
  const auto core_mhz = [&]() -> std::optional<double> {
    if (auto k = t.device_number("sm_clock_khz"); k && *k > 0) return *k / 1000.0;
    return std::nullopt;
  }();

  // --- caches -------------------------------------------------------------
  L2Choice l2 = l2_choice(t);
  cfg.l2 = l2.g;
  cfg.l2_sub_partitions = l2.n_mem * l2.per_channel;

  AccelSimSection caches{"caches: <sector N|S>:<sets>:<line>:<ways>,<replacement>:<write>:<allocate>:"
                         "<write-allocate>:<set index>,<MSHR>",
                         {}};
  {
    std::vector<std::string> com{"L1 data cache (ld.global.ca), per SM"};
    cfg.l1 = cache_geometry(t, "l1", CacheDefaults{128, 32 * 1024}, com);
    const char rp = replacement_letter(t, "l1", com);
    com.push_back("write-through (T), allocate on miss (m), no write-allocate (N), linear set index (L), MSHR A:256:8, "
                  "miss queue 16 [defaults: not measured]");
    if (auto sw = t.topology["caches"].value("l1", json::object()).value("shared_with", json::array()); !sw.empty())
      com.push_back("the topology finds L1 sharing its storage with " + sw.dump() +
                    "; the format keeps separate texture and data caches");
    caches.options.push_back(option("-gpgpu_cache:dl1",
                                    fmt::format("{},{}:T:m:N:L,A:256:8,16:0", geometry_text(cfg.l1), rp), com,
                                    cfg.l1.size_measured));
  }
  {
    std::vector<std::string> com{"texture cache, per SM"};
    cfg.texture = cache_geometry(t, "texture", CacheDefaults{128, 32 * 1024}, com, false);
    const char rp = replacement_letter(t, "texture", com);
    const char fifo = l2.g.sector ? 'T' : 'F';
    com.push_back(fmt::format("read-only (R), allocate on miss (m), linear set index (L), fragment FIFO {}:128:4, "
                              "result FIFO 128:2 [defaults: not measured]",
                              fifo));
    caches.options.push_back(option("-gpgpu_tex_cache:l1",
                                    fmt::format("{},{}:R:m:N:L,{}:128:4,128:2", geometry_text(cfg.texture), rp, fifo),
                                    com, cfg.texture.size_measured));
  }
  {
    std::vector<std::string> com{"constant cache, level 1, per SM"};
    cfg.constant = cache_geometry(t, "constant_l1", CacheDefaults{64, 2 * 1024}, com, false);
    const char rp = replacement_letter(t, "constant_l1", com);
    com.push_back("read-only (R), allocate on fill (f), linear set index (L), MSHR A:2:64, miss queue 4 [defaults: "
                  "not measured]");
    caches.options.push_back(option("-gpgpu_const_cache:l1",
                                    fmt::format("{},{}:R:f:N:L,A:2:64,4", geometry_text(cfg.constant), rp), com,
                                    cfg.constant.size_measured));
  }
  {
    std::vector<std::string> com{"L2, per memory sub-partition"};
    com.insert(com.end(), l2.comments.begin(), l2.comments.end());
    const char rp = replacement_letter(t, "l2", com);
    com.push_back("write-back (B), allocate on miss (m), lazy fetch on read (L), linear set index (L), MSHR A:256:4, "
                  "miss queue 32 [defaults: not measured; the L2 address mapping is not measured]");
    caches.options.push_back(option("-gpgpu_cache:dl2", fmt::format("{},{}:B:m:L:L,A:256:4,32:0", geometry_text(l2.g), rp),
                                    com, l2.g.line_measured || l2.g.size_measured));
  }
  caches.options.push_back(option("-gpgpu_adaptive_cache_config", "0",
                                  {"the L1 keeps the size measured under the topology's shared-memory carveout, "
                                   "not one the simulator derives from the unified L1/shared capacity [choice]"},
                                  false));
  cfg.gpgpusim.push_back(std::move(caches));

  // --- memory system ------------------------------------------------------------
  AccelSimSection mem{"memory system", {}};
  mem.options.push_back(option("-gpgpu_n_mem", std::to_string(l2.n_mem), l2.channel_comments, false));
  mem.options.push_back(option("-gpgpu_n_sub_partition_per_mchannel", std::to_string(l2.per_channel),
                               {"sub-partitions per channel [default: not measured]"}, false));
  const json l2_row = t.topology["caches"].value("l2", json::object());
  if (l2_row.contains("hit_levels_cycles") && l2_row["hit_levels_cycles"].is_array() &&
      l2_row["hit_levels_cycles"].size() >= 2) {
    std::string levels;
    for (const auto& v : l2_row["hit_levels_cycles"])
      levels += (levels.empty() ? "" : " / ") + fmt::format("{:.0f}", v.get<double>());
    mem.options.push_back(option("-gpgpu_n_chiplet_partition", std::to_string(l2_row["hit_levels_cycles"].size()),
                                 {"L2 partitions: inferred, one per measured L2 hit level (near / far: " + levels +
                                  " cycles, caches.l2.hit_levels_cycles); an option of recent Accel-Sim only"},
                                 true));
  }
  mem.options.push_back(option("-gpgpu_n_mem_per_ctrlr", "1", {"[default: not measured]"}, false));
  mem.options.push_back(option("-gpgpu_dram_buswidth", "8", {"bytes per channel and DRAM clock [default: not measured]"},
                               false));
  mem.options.push_back(
      option("-dram_data_command_freq_ratio", "2", {"data transfers per DRAM command clock [default: not measured]"},
             false));
  cfg.gpgpusim.push_back(std::move(mem));

  // --- latencies ------------------------------------------------------------------
  AccelSimSection lat{"latencies (SM cycles; GPGPU-Sim adds the interconnect's own cycles to the L2 and DRAM paths)",
                      {}};
  const auto l1_lat = latency_of(t, "l1");
  const auto l2_lat = latency_of(t, "l2");
  const auto dram_lat = latency_of(t, "dram");
  const auto smem_lat = latency_of(t, "shared");
  if (l1_lat)
    lat.options.push_back(option("-gpgpu_l1_latency", fmt::format("{:.0f}", *l1_lat),
                                 {"L1 hit: measured " + cycles_text(*l1_lat) + " (" + latency_key(t, "l1") + ")"},
                                 true));
  else
    lat.options.push_back(option("-gpgpu_l1_latency", "20", {"L1 hit [default: not measured]"}, false));
  if (smem_lat)
    lat.options.push_back(option("-gpgpu_smem_latency", fmt::format("{:.0f}", *smem_lat),
                                 {"shared memory: measured " + cycles_text(*smem_lat) +
                                  " (" + latency_key(t, "shared") + ")"},
                                 true));
  else
    lat.options.push_back(option("-gpgpu_smem_latency", "20", {"shared memory [default: not measured]"}, false));
  if (l1_lat && l2_lat && *l2_lat > *l1_lat)
    lat.options.push_back(option("-gpgpu_l2_rop_latency", fmt::format("{:.0f}", *l2_lat - *l1_lat),
                                 {"L2 hit beyond an L1 lookup: measured L2 " + cycles_text(*l2_lat) + " - L1 " +
                                  cycles_text(*l1_lat)},
                                 true));
  else
    lat.options.push_back(option("-gpgpu_l2_rop_latency", "120", {"L2 hit beyond L1 [default: not measured]"}, false));
  if (l2_lat && dram_lat && *dram_lat > *l2_lat)
    lat.options.push_back(option("-dram_latency", fmt::format("{:.0f}", *dram_lat - *l2_lat),
                                 {"DRAM beyond an L2 miss: measured main memory " + cycles_text(*dram_lat) + " - L2 " +
                                  cycles_text(*l2_lat)},
                                 true));
  else
    lat.options.push_back(option("-dram_latency", "100", {"DRAM beyond L2 [default: not measured]"}, false));
  cfg.gpgpusim.push_back(std::move(lat));

  // --- core, shared memory, clocks ---------------------------------------------------
  AccelSimSection sm{"SMs, shared memory, clocks", {}};
  if (sms)
    sm.options.push_back(option("-gpgpu_n_clusters", std::to_string(*sms), {"SMs: reported by the driver"}, false));
  else
    sm.options.push_back(option("-gpgpu_n_clusters", "1", {"SMs [default: not reported]"}, false));
  sm.options.push_back(option("-gpgpu_n_cores_per_cluster", "1", {"one SM per cluster [default]"}, false));
  const json sh = t.topology["caches"].value("shared", json::object());
  if (auto banks = positive(t.cache_number("shared", "banks")))
    sm.options.push_back(option("-gpgpu_shmem_num_banks", std::to_string(*banks),
                                  {sh.value("bank_width_bytes", 0) > 0
                                       ? fmt::format("measured (caches.shared.banks; {} B wide: the format has no "
                                                     "width option)",
                                                     sh.value("bank_width_bytes", 0))
                                       : std::string("measured (caches.shared.banks; their width not measured)")},
                                  true));
  else
    sm.options.push_back(option("-gpgpu_shmem_num_banks", "32", {"[default: not measured]"}, false));
  auto shmem = positive(t.cache_number("shared", "driver_per_sm_bytes"));
  if (!shmem) shmem = positive(t.device_number("shared_per_sm_bytes"));
  if (shmem) {
    sm.options.push_back(option("-gpgpu_shmem_size", std::to_string(*shmem),
                                  {"shared memory per SM: reported by the driver"}, false));
    sm.options.push_back(option("-gpgpu_shmem_sizeDefault", std::to_string(*shmem),
                                  {"shared memory per SM: reported by the driver"}, false));
  } else {
    sm.options.push_back(option("-gpgpu_shmem_size", "49152", {"shared memory per SM [default: not reported]"}, false));
  }
  if (auto per_block = positive(t.cache_number("shared", "driver_per_block_bytes")))
    sm.options.push_back(option("-gpgpu_shmem_per_block", std::to_string(*per_block),
                                  {"shared memory per block: reported by the driver"}, false));

  // Clocks: core as the device reported it; the DRAM clock is what makes the model's
  // peak (channels x bus width x transfers per clock x clock) the measured bandwidth.
  const double core = core_mhz.value_or(1000.0);
  std::vector<std::string> clock_com{"<core>:<interconnect>:<L2>:<DRAM> MHz"};
  clock_com.push_back(core_mhz ? fmt::format("core {:.0f} MHz: the SM clock the device reported", core)
                               : std::string("core 1000 MHz [default: not reported]"));
  clock_com.push_back("interconnect and L2 at the core clock [default: not measured]");
  double dram_mhz = 1000.0;
  bool bandwidth_derived = false;
  const json bw = t.topology.value("bandwidth", json::object());
  if (bw.is_object() && bw.contains("global") && bw["global"].is_object()) {
    const json& g = bw["global"];
    double gbps = 0;
    if (g.contains("gbps") && g["gbps"].is_number())
      gbps = g["gbps"].get<double>();
    else if (g.contains("value") && g["value"].is_number() && g.value("unit", "") == "GB/s")
      gbps = g["value"].get<double>();
    if (gbps > 0) {
      const double per_clock = static_cast<double>(l2.n_mem) * 8.0 * 2.0;  // bytes per DRAM clock
      dram_mhz = gbps * 1000.0 / per_clock;
      bandwidth_derived = true;
      clock_com.push_back(fmt::format("DRAM {:.0f} MHz: derived from the measured global bandwidth {:.0f} GB/s "
                                      "(bandwidth.global) = {} channels x 8 B x 2 per clock x clock, where the "
                                      "channels, the 8 B bus and the 2 transfers per clock are [defaults]; the "
                                      "measurement is a lower bound of the peak",
                                      dram_mhz, gbps, l2.n_mem));
    }
  }
  if (!bandwidth_derived) {
    if (auto mk = t.device_number("memory_clock_khz"); mk && *mk > 0) {
      dram_mhz = *mk / 1000.0;
      clock_com.push_back(fmt::format("DRAM {:.0f} MHz: the memory clock the driver reported (bandwidth not "
                                      "measured, e.g. a --fast topology)",
                                      dram_mhz));
    } else {
      clock_com.push_back("DRAM 1000 MHz [default: bandwidth not measured]");
    }
  }
  sm.options.push_back(option("-gpgpu_clock_domains",
                                fmt::format("{:.0f}:{:.0f}:{:.0f}:{:.0f}", core, core, core, dram_mhz), clock_com,
                                bandwidth_derived));
  cfg.gpgpusim.push_back(std::move(sm));

  // --- trace-driven Accel-Sim: texture instructions get a fixed latency -------------
  AccelSimSection tex{"texture unit (trace-driven Accel-Sim: texture loads take a fixed latency)", {}};
  const auto tex_lat = latency_of(t, "texture");
  const std::string tl = tex_lat ? fmt::format("{:.0f}", *tex_lat) : std::string("200");
  const std::string tex_source = tex_lat ? "texture hit: measured " + cycles_text(*tex_lat) +
                                               " (" + latency_key(t, "texture") + ")"
                                         : std::string("texture latency [default: not measured]");
  tex.options.push_back(option("-specialized_unit_2", "1,4," + tl + ",4,4,TEX",
                               {"<enabled>,<units>,<max latency>,<ID_OC>,<OC_EX>,<name>: units and ports [default]",
                                "max latency: " + tex_source},
                               tex_lat.has_value()));
  tex.options.push_back(option("-trace_opcode_latency_initiation_spec_op_2", tl + ",4",
                               {"<latency>,<initiation interval>: " + tex_source + "; interval 4 [default]"},
                               tex_lat.has_value()));
  cfg.trace.push_back(std::move(tex));

  // --- what the format cannot hold --------------------------------------------------
  if (auto lat15 = latency_of(t, "constant_l15"))
    cfg.not_exported.push_back(fmt::format("constant L1.5: {} (the format has one constant cache level)",
                                           cycles_text(*lat15)));
  if (auto ro = latency_of(t, "readonly"))
    cfg.not_exported.push_back(fmt::format("read-only path (ld.global.nc): {}; GPGPU-Sim sends it through the L1 "
                                           "data cache",
                                           cycles_text(*ro)));
  if (t.topology.contains("tlb") && t.topology["tlb"].is_object()) {
    const json& tlb = t.topology["tlb"];
    if (tlb.contains("levels") && tlb["levels"].is_array() && !tlb["levels"].empty())
      cfg.not_exported.push_back(fmt::format("TLB: {} level(s) (the format models no TLB)", tlb["levels"].size()));
    if (tlb.contains("page_bytes") && tlb["page_bytes"].is_number())
      cfg.not_exported.push_back("page size " + bytes_text(tlb["page_bytes"].get<std::uint64_t>()));
  }
  if (bw.is_object() && bw.contains("shared") && bw["shared"].is_object() && bw["shared"].contains("value"))
    cfg.not_exported.push_back(fmt::format("shared-memory bandwidth {:.0f} {}", bw["shared"]["value"].get<double>(),
                                           bw["shared"].value("unit", "")));
  return cfg;
}

namespace {

std::string header(const TopologyFile& t, const char* what, const char* whole) {
  const json& top = t.topology;
  std::string out;
  out += fmt::format("# {} written by 'dissect export accelsim' from a measured topology\n", what);
  out += "#   topology: " + t.path + "\n";
  out += "#   device:   " + t.device_name();
  if (top.contains("device") && top["device"].is_object() && top["device"].contains("arch"))
    out += " (" + top["device"].value("arch", std::string()) + ")";
  out += "\n";
  if (top.contains("started") && top["started"].is_string()) out += "#   measured: " + top["started"].get<std::string>() + "\n";
  if (top.contains("tool") && top["tool"].is_object() && top["tool"].contains("version"))
    out += "#   dissect:  " + top["tool"].value("version", std::string()) + " (git " +
           top["tool"].value("git_revision", std::string("?")) + ")\n";
  out += "# Each option is preceded by where its value came from. \"measured\" names the\n"
         "# topology.json key; \"[default]\" marks a value dissect did not measure: a stated\n"
         "# default to replace with better knowledge; \"reported by the driver\" is not a measurement.\n"
         "# A fragment: add it to (or let it override) a full " + std::string(whole) + ".\n";
  return out;
}

std::string render_sections(const std::vector<AccelSimSection>& sections) {
  std::string out;
  for (const auto& s : sections) {
    out += "\n# ---- " + s.title + "\n";
    for (const auto& o : s.options) {
      for (const auto& c : o.comments) out += "# " + c + "\n";
      out += o.option + " " + o.value + "\n";
    }
  }
  return out;
}

}  // namespace

std::string render_gpgpusim_config(const AccelSimConfig& config, const TopologyFile& topology) {
  std::string out = header(topology, "gpgpusim.config fragment (GPGPU-Sim 4 / Accel-Sim)", "gpgpusim.config");
  out += "# The trace-driven Accel-Sim reads these options too; its trace.config fragment\n"
         "# (texture latency) is written by --trace-config.\n";
  out += render_sections(config.gpgpusim);
  if (!config.not_exported.empty()) {
    out += "\n# ---- measured, but no option of the format holds it\n";
    for (const auto& n : config.not_exported) out += "# " + n + "\n";
  }
  return out;
}

std::string render_trace_config(const AccelSimConfig& config, const TopologyFile& topology) {
  return header(topology, "trace.config fragment (trace-driven Accel-Sim)", "trace.config") + render_sections(config.trace);
}

}  // namespace dissect
