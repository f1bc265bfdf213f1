#include "engine/topology/accelsim_check.hpp"

#include <fmt/format.h>

#include <cctype>
#include <cstdint>
#include <map>
#include <sstream>

namespace dissect {
namespace {

enum class Kind { uint, cache, clock_domains, specialized_unit, latency_initiation };

struct OptionRule {
  Kind kind;
  const char* cache = "";  // Kind::cache
};

// The options the export writes (GPGPU-Sim 4 / Accel-Sim names).
const std::map<std::string, OptionRule>& rules() {
  static const std::map<std::string, OptionRule> r{
      {"-gpgpu_cache:dl1", {Kind::cache, "dl1"}},
      {"-gpgpu_cache:dl2", {Kind::cache, "dl2"}},
      {"-gpgpu_cache:il1", {Kind::cache, "il1"}},
      {"-gpgpu_tex_cache:l1", {Kind::cache, "tex"}},
      {"-gpgpu_const_cache:l1", {Kind::cache, "const"}},
      {"-gpgpu_adaptive_cache_config", {Kind::uint}},
      {"-gpgpu_unified_l1d_size", {Kind::uint}},
      {"-gpgpu_l1_banks", {Kind::uint}},
      {"-gpgpu_n_mem", {Kind::uint}},
      {"-gpgpu_n_sub_partition_per_mchannel", {Kind::uint}},
      {"-gpgpu_n_chiplet_partition", {Kind::uint}},
      {"-gpgpu_n_mem_per_ctrlr", {Kind::uint}},
      {"-gpgpu_dram_buswidth", {Kind::uint}},
      {"-dram_data_command_freq_ratio", {Kind::uint}},
      {"-gpgpu_l1_latency", {Kind::uint}},
      {"-gpgpu_smem_latency", {Kind::uint}},
      {"-gpgpu_l2_rop_latency", {Kind::uint}},
      {"-dram_latency", {Kind::uint}},
      {"-gpgpu_n_clusters", {Kind::uint}},
      {"-gpgpu_n_cores_per_cluster", {Kind::uint}},
      {"-gpgpu_shmem_num_banks", {Kind::uint}},
      {"-gpgpu_shmem_size", {Kind::uint}},
      {"-gpgpu_shmem_sizeDefault", {Kind::uint}},
      {"-gpgpu_shmem_per_block", {Kind::uint}},
      {"-gpgpu_clock_domains", {Kind::clock_domains}},
      {"-specialized_unit_1", {Kind::specialized_unit}},
      {"-specialized_unit_2", {Kind::specialized_unit}},
      {"-specialized_unit_3", {Kind::specialized_unit}},
      {"-specialized_unit_4", {Kind::specialized_unit}},
      {"-trace_opcode_latency_initiation_spec_op_1", {Kind::latency_initiation}},
      {"-trace_opcode_latency_initiation_spec_op_2", {Kind::latency_initiation}},
      {"-trace_opcode_latency_initiation_spec_op_3", {Kind::latency_initiation}},
      {"-trace_opcode_latency_initiation_spec_op_4", {Kind::latency_initiation}},
  };
  return r;
}

bool is_uint(const std::string& s) {
  if (s.empty() || s.size() > 10) return false;
  for (char c : s)
    if (!std::isdigit(static_cast<unsigned char>(c))) return false;
  return std::stoull(s) <= 0xffffffffull;
}

bool is_pow2(std::uint64_t v) { return v != 0 && (v & (v - 1)) == 0; }

std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> out;
  std::string cur;
  for (char c : s) {
    if (c == sep) {
      out.push_back(cur);
      cur.clear();
    } else {
      cur += c;
    }
  }
  out.push_back(cur);
  return out;
}

bool is_number(const std::string& s) {
  if (s.empty()) return false;
  std::size_t dots = 0;
  for (char c : s) {
    if (c == '.')
      ++dots;
    else if (!std::isdigit(static_cast<unsigned char>(c)))
      return false;
  }
  return dots <= 1 && s != ".";
}

}  // namespace

std::vector<std::string> check_accelsim_cache(const std::string& value, const std::string& cache) {
  std::vector<std::string> p;
  if (value == "none") return p;  // the simulator's "no such cache"
  // Groups: geometry, policies, MSHR, queues, port width (the scanf pattern
  // "%c:%u:%u:%u,%c:%c:%c:%c:%c,%c:%u:%u,%u:%u,%u").
  const auto groups = split(value, ',');
  if (groups.size() < 3 || groups.size() > 5) {
    p.push_back(fmt::format("'{}': expected <type>:<sets>:<line>:<ways>,<policies>,<MSHR>[,<queues>[,<port>]]", value));
    return p;
  }
  const auto geo = split(groups[0], ':');
  const auto pol = split(groups[1], ':');
  const auto mshr = split(groups[2], ':');
  if (geo.size() != 4 || pol.size() != 5 || mshr.size() != 3) {
    p.push_back(fmt::format("'{}': fields per group must be 4 (geometry), 5 (policies), 3 (MSHR)", value));
    return p;
  }
  auto one_char = [&](const std::string& f, const char* allowed, const char* what) -> char {
    if (f.size() != 1 || std::string(allowed).find(f[0]) == std::string::npos) {
      p.push_back(fmt::format("{} '{}' is none of {}", what, f, allowed));
      return '\0';
    }
    return f[0];
  };
  const char type = one_char(geo[0], "NS", "cache type");
  for (std::size_t i = 1; i < 4; ++i)
    if (!is_uint(geo[i]) || std::stoull(geo[i]) == 0) p.push_back(fmt::format("'{}' is no positive count", geo[i]));
  one_char(pol[0], "LF", "replacement");
  const char wp = one_char(pol[1], "RBTEL", "write policy");
  const char ap = one_char(pol[2], "mfs", "allocation policy");
  const char wap = one_char(pol[3], "NWFL", "write-allocate policy");
  const char sif = one_char(pol[4], "LXHPC", "set index function");
  const char mt = one_char(mshr[0], "AFST", "MSHR type");
  for (std::size_t i = 1; i < 3; ++i)
    if (!is_uint(mshr[i])) p.push_back(fmt::format("MSHR field '{}' is no count", mshr[i]));
  std::vector<std::string> queues = groups.size() >= 4 ? split(groups[3], ':') : std::vector<std::string>{};
  if (groups.size() >= 4 && (queues.empty() || queues.size() > 2))
    p.push_back(fmt::format("queues '{}': <miss queue>[:<result FIFO>]", groups[3]));
  for (const auto& q : queues)
    if (!is_uint(q)) p.push_back(fmt::format("queue size '{}' is no count", q));
  // scanf's count of converted fields: 12 through the MSHR, +1 or +2 queue sizes, +1 port.
  const std::size_t tokens = 12 + queues.size() + (groups.size() == 5 ? 1 : 0);
  if (groups.size() == 5 && queues.size() != 2)
    p.push_back("a port width needs both queue sizes before it (<miss queue>:<result FIFO>)");
  if (!p.empty()) return p;

  const std::uint64_t sets = std::stoull(geo[1]), line = std::stoull(geo[2]);
  if (!is_pow2(line)) p.push_back(fmt::format("line size {} is no power of two", line));
  if ((sif == 'L' || sif == 'X') && !is_pow2(sets))
    p.push_back(fmt::format("{} sets with set index '{}': the index masks address bits, so sets must be a power of two",
                            sets, sif));
  if (sif == 'H' && sets != 32 && sets != 64) p.push_back("the Fermi hash set index (H) needs 32 or 64 sets");
  if (type == 'S' && line != 128)
    p.push_back(fmt::format("sector cache (S) with {} B lines: the simulator's sectors are 4 x 32 B, so lines must "
                            "be 128 B",
                            line));
  if ((mt == 'F' || mt == 'T') && tokens != 14)
    p.push_back("a texture FIFO MSHR (F, T) needs exactly <MSHR>,<miss queue>:<result FIFO> and no port width");
  if ((ap == 'f' || ap == 's') && wp == 'B')
    p.push_back("a write-back cache (B) cannot allocate on fill or stream (f, s): the simulator refuses it (deadlock)");
  if ((wap == 'F' || wap == 'L') && (ap == 'f' || ap == 's'))
    p.push_back("fetch-on-write / lazy fetch-on-read (F, L) need allocate-on-miss (m)");
  if (groups.size() == 5) {
    const auto port = split(groups[4], ':');
    if (port.size() != 1 || !is_uint(port[0]))
      p.push_back(fmt::format("port width '{}' is no count", groups[4]));
    else if (const auto w = std::stoull(port[0]); w != 0 && line % w != 0)
      p.push_back(fmt::format("port width {} does not divide the line size {}", w, line));
  }
  if (cache == "tex" && mt != 'F' && mt != 'T')
    p.push_back("the texture cache needs a fragment FIFO MSHR (F or T)");
  if ((cache == "dl1" || cache == "dl2") && (mt == 'F' || mt == 'T'))
    p.push_back("a data cache needs an associative MSHR (A or S)");
  if ((cache == "tex" || cache == "const" || cache == "il1") && wp != 'R')
    p.push_back("a read-only cache (texture, constant, instruction) needs write policy R");
  return p;
}

std::vector<AccelSimProblem> check_accelsim_config(const std::string& text) {
  std::vector<AccelSimProblem> problems;
  std::istringstream in(text);
  std::string raw;
  std::size_t n = 0;
  std::map<std::string, std::size_t> seen;
  std::map<std::string, std::string> values;
  while (std::getline(in, raw)) {
    ++n;
    std::istringstream words(raw);
    std::string name, value, extra;
    if (!(words >> name) || name[0] == '#') continue;
    auto add = [&](const std::string& m) { problems.push_back({n, name + ": " + m}); };
    if (name[0] != '-') {
      problems.push_back({n, "'" + name + "': an option line starts with '-' (comments with '#')"});
      continue;
    }
    if (!(words >> value)) {
      add("no value");
      continue;
    }
    if (words >> extra && extra[0] != '#') {
      add("more than one value ('" + extra + "')");
      continue;
    }
    const auto it = rules().find(name);
    if (it == rules().end()) {
      add("unknown option (not one the export writes or this check knows)");
      continue;
    }
    if (auto s = seen.find(name); s != seen.end()) add(fmt::format("given twice (line {} too)", s->second));
    seen[name] = n;
    values[name] = value;
    switch (it->second.kind) {
      case Kind::uint:
        if (!is_uint(value)) add("'" + value + "' is no unsigned integer");
        break;
      case Kind::cache:
        for (const auto& m : check_accelsim_cache(value, it->second.cache)) add(m);
        break;
      case Kind::clock_domains: {
        const auto f = split(value, ':');
        bool ok = f.size() == 4;
        for (const auto& x : f) ok = ok && is_number(x) && std::stod(x) > 0;
        if (!ok) add("'" + value + "': expected <core>:<interconnect>:<L2>:<DRAM> in MHz, all positive");
        break;
      }
      case Kind::specialized_unit: {
        const auto f = split(value, ',');
        bool ok = f.size() == 6 && !f[5].empty();
        for (std::size_t i = 0; ok && i < 5; ++i) ok = is_uint(f[i]);
        if (!ok) add("'" + value + "': expected <enabled>,<units>,<max latency>,<ID_OC>,<OC_EX>,<name>");
        break;
      }
      case Kind::latency_initiation: {
        const auto f = split(value, ',');
        if (f.size() != 2 || !is_uint(f[0]) || !is_uint(f[1])) add("'" + value + "': expected <latency>,<initiation>");
        break;
      }
    }
  }
  // Across options: the unified L1 size must be a whole multiple of the dl1's size
  // (l1d_cache_config::get_max_cache_multiplier).
  if (values.count("-gpgpu_unified_l1d_size") && values.count("-gpgpu_cache:dl1") &&
      is_uint(values["-gpgpu_unified_l1d_size"]) && check_accelsim_cache(values["-gpgpu_cache:dl1"], "dl1").empty() &&
      values["-gpgpu_cache:dl1"] != "none") {
    const auto geo = split(split(values["-gpgpu_cache:dl1"], ',')[0], ':');
    const std::uint64_t kib = std::stoull(geo[1]) * std::stoull(geo[2]) * std::stoull(geo[3]) / 1024;
    const std::uint64_t unified = std::stoull(values["-gpgpu_unified_l1d_size"]);
    if (kib == 0 || unified % kib != 0)
      problems.push_back({seen["-gpgpu_unified_l1d_size"],
                          fmt::format("-gpgpu_unified_l1d_size {} KiB is no whole multiple of the dl1's {} KiB", unified,
                                      kib)});
  }
  return problems;
}

}  // namespace dissect
