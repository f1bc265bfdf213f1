#pragma once
// On-disk cache of compiled kernels under $XDG_CACHE_HOME/dissect/kernels,
// keyed by a hash of (generated source = template text + parameters, NVRTC
// version, options incl. the target arch). Entries are written with atomic
// renames, the metadata (.json, with checksums of the CUBIN and the PTX) last,
// so a concurrent run sees a complete entry or none; two runs compiling the same
// kernel write identical files. What is returned is verified: a CUBIN or PTX
// that does not match its checksum (truncated, emptied, replaced) is a miss, and
// compile_cached compiles it again and rewrites the entry. The cache is best
// effort: a read-only or full disk only costs compile time.
#include <optional>
#include <string>

#include "engine/codegen/codegen.hpp"
#include "engine/codegen/nvrtc_compiler.hpp"

namespace dissect {

class CompileCache {
 public:
  // `dir` empty: cache_dir() + "/kernels". --no-cache (settings::compile_cache_enabled) disables it.
  explicit CompileCache(std::string dir = "");
  [[nodiscard]] static std::string key(const std::string& source, int arch, bool cubin);
  // `with_text` false: the PTX and the log stay unread (text_pending), which a run only
  // needs for the bundle's kernel artifacts, written while the kernel runs: two file
  // reads fewer before the first launch. load_text reads them; false when it cannot.
  [[nodiscard]] std::optional<CompiledKernel> find(const std::string& key, bool with_text = true) const;
  bool load_text(CompiledKernel& k) const;
  // Returns false when the entry could not be written.
  bool store(const std::string& key, const CompiledKernel& k) const;
  // Disassembly kept next to an entry (computed once per kernel).
  [[nodiscard]] std::optional<std::string> find_sass(const std::string& key) const;
  bool store_sass(const std::string& key, const std::string& sass) const;
  [[nodiscard]] const std::string& dir() const { return dir_; }
  [[nodiscard]] bool enabled() const { return enabled_; }

 private:
  std::string dir_;
  bool enabled_ = true;
};

// Compiles through the cache: a hit returns the stored CUBIN/PTX/log with
// from_cache set and compile_ms = the lookup time (with_text false: PTX and log
// left for CompileCache::load_text).
CompiledKernel compile_cached(const GeneratedKernel& kernel, int arch, const CompileCache& cache, bool cubin = true,
                              bool with_text = true);
// A cache hit only (no NVRTC): std::nullopt when the kernel is not cached.
std::optional<CompiledKernel> lookup_cached(const GeneratedKernel& kernel, int arch, const CompileCache& cache,
                                            bool cubin = true, bool with_text = true);

}  // namespace dissect
