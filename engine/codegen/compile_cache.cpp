#include "engine/codegen/compile_cache.hpp"

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "engine/codegen/content_hash.hpp"
#include "engine/core/files.hpp"
#include "engine/core/paths.hpp"
#include "engine/core/settings.hpp"

namespace dissect {
namespace fs = std::filesystem;

namespace {

std::optional<std::string> read_if_exists(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  if (!in) return std::nullopt;
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// What an entry's .json stores of its files: a truncated, emptied or foreign
// CUBIN or PTX (a full disk, a crash of another writer, a bad sector, a user)
// does not match and is compiled again instead of crashing a kernel load.
std::string checksum(std::string_view content) { return ContentHash().field(content).hex(); }

// The entry's metadata when it parses and names its checksums.
std::optional<nlohmann::json> read_meta(const std::string& base) {
  auto text = read_if_exists(base + ".json");
  if (!text) return std::nullopt;
  try {
    auto meta = nlohmann::json::parse(*text);
    if (!meta.is_object() || !meta.contains("arch") || !meta["arch"].is_string() ||
        !meta.value("cubin_checksum", nlohmann::json()).is_string() ||
        !meta.value("ptx_checksum", nlohmann::json()).is_string())
      return std::nullopt;
    return meta;
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

}  // namespace

CompileCache::CompileCache(std::string dir) : dir_(dir.empty() ? (fs::path(cache_dir()) / "kernels").string() : dir) {
  enabled_ = settings::compile_cache_enabled();
}

std::string CompileCache::key(const std::string& source, int arch, bool cubin) {
  ContentHash h;
  h.field("dissect-kernel-cache-v1").field(source).field(NvrtcCompiler::version());
  for (const auto& o : NvrtcCompiler::options(arch, cubin)) h.field(o);
  return h.hex();
}

std::optional<CompiledKernel> CompileCache::find(const std::string& key, bool with_text) const {
  if (!enabled_) return std::nullopt;
  const std::string base = (fs::path(dir_) / key).string();
  const auto meta = read_meta(base);  // written last: its presence means complete
  if (!meta) return std::nullopt;
  auto cubin = read_if_exists(base + ".cubin");
  if (!cubin || checksum(*cubin) != (*meta)["cubin_checksum"].get<std::string>()) return std::nullopt;
  CompiledKernel k;
  k.arch = (*meta)["arch"].get<std::string>();
  k.ptx_checksum = (*meta)["ptx_checksum"].get<std::string>();
  k.cubin = std::move(*cubin);
  k.cache_key = key;
  k.from_cache = true;
  k.text_pending = true;
  if (with_text && !load_text(k)) return std::nullopt;
  return k;
}

bool CompileCache::load_text(CompiledKernel& k) const {
  if (!k.text_pending) return true;
  const std::string base = (fs::path(dir_) / k.cache_key).string();
  auto ptx = read_if_exists(base + ".ptx");
  if (!ptx || checksum(*ptx) != k.ptx_checksum) return false;
  k.ptx = std::move(*ptx);
  k.log = read_if_exists(base + ".log").value_or("");
  k.text_pending = false;
  return true;
}

bool CompileCache::store(const std::string& key, const CompiledKernel& k) const {
  if (!enabled_) return false;
  try {
    fs::create_directories(dir_);
    const std::string base = (fs::path(dir_) / key).string();
    const std::string cubin = k.cubin.empty() ? std::string("ptx-only") : k.cubin;
    // Each file replaced atomically, the metadata with the checksums last: a reader
    // sees a complete entry or none, and concurrent writers of one key write the
    // same bytes (a CUBIN from another writer's half-way state fails its checksum).
    write_file_atomic(base + ".ptx", k.ptx);
    write_file_atomic(base + ".log", k.log);
    write_file_atomic(base + ".cubin", cubin);
    write_file_atomic(base + ".json", nlohmann::json{{"arch", k.arch},
                                                     {"nvrtc", NvrtcCompiler::version()},
                                                     {"compile_ms", k.compile_ms},
                                                     {"created", utc_timestamp()},
                                                     {"cubin_checksum", checksum(cubin)},
                                                     {"ptx_checksum", checksum(k.ptx)}}
                                              .dump(2) +
                                          "\n");
    return true;
  } catch (const std::exception&) {
    return false;
  }
}

std::optional<std::string> CompileCache::find_sass(const std::string& key) const {
  if (!enabled_) return std::nullopt;
  return read_if_exists((fs::path(dir_) / key).string() + ".sass");
}

bool CompileCache::store_sass(const std::string& key, const std::string& sass) const {
  if (!enabled_) return false;
  try {
    write_file_atomic((fs::path(dir_) / key).string() + ".sass", sass);
    return true;
  } catch (const std::exception&) {
    return false;
  }
}

std::optional<CompiledKernel> lookup_cached(const GeneratedKernel& kernel, int arch, const CompileCache& cache,
                                            bool cubin, bool with_text) {
  const auto t0 = std::chrono::steady_clock::now();
  auto hit = cache.find(CompileCache::key(kernel.source, arch, cubin), with_text);
  if (!hit) return std::nullopt;
  if (!cubin) hit->cubin.clear();
  hit->compile_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  return hit;
}

CompiledKernel compile_cached(const GeneratedKernel& kernel, int arch, const CompileCache& cache, bool cubin,
                              bool with_text) {
  if (auto hit = lookup_cached(kernel, arch, cache, cubin, with_text)) return std::move(*hit);
  CompiledKernel k = NvrtcCompiler::compile(kernel.source, kernel.name(), arch, cubin);
  k.cache_key = CompileCache::key(kernel.source, arch, cubin);
  cache.store(k.cache_key, k);
  return k;
}

}  // namespace dissect
