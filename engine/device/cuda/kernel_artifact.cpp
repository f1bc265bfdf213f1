#include "engine/device/cuda/kernel_artifact.hpp"

#include "engine/codegen/disassembler.hpp"
#include "engine/codegen/nvrtc_compiler.hpp"
#include "engine/core/timeline.hpp"

namespace dissect {

KernelArtifact kernel_artifact(const GeneratedKernel& gen, CompiledKernel& bin, CompileCache& cache, int arch,
                               int registers, std::uint32_t static_shared_bytes) {
  KernelArtifact a;
  const bool text = cache.load_text(bin);
  a.name = gen.name() + "-" + bin.arch;
  a.source = gen.source;
  a.ptx = bin.ptx;
  a.log = bin.log;
  timeline::mark("artifact: texts loaded");
  std::string why;
  a.sass = sass_of(bin, cache, &why);
  timeline::mark("artifact: SASS in hand");
  nlohmann::json meta = gen.params.to_json();
  meta["arch"] = bin.arch;
  meta["nvrtc_version"] = NvrtcCompiler::version();
  meta["nvrtc_options"] = NvrtcCompiler::options(arch, true);
  meta["cache_key"] = bin.cache_key;
  meta["from_cache"] = bin.from_cache;
  if (!text) meta["ptx"] = "not available: the compile-cache entry lost its PTX after the lookup";
  meta["compile_ms"] = bin.compile_ms;
  meta["registers"] = registers;
  meta["static_shared_bytes"] = static_shared_bytes;
  meta["template_files"] = gen.template_files;
  meta["sass"] = a.sass.empty() ? "not available: " + why : "kept (" + find_disassembler() + ")";
  if (!a.sass.empty()) meta["sass_loads"] = sass_load_lines(a.sass);
  a.meta = std::move(meta);
  return a;
}

std::string sass_of(const CompiledKernel& bin, const CompileCache& cache, std::string* why) {
  if (auto s = cache.find_sass(bin.cache_key)) return *s;
  std::string sass = disassemble_cubin(bin.cubin, why);
  if (!sass.empty()) cache.store_sass(bin.cache_key, sass);
  return sass;
}

// Lines of the SASS that load memory (evidence of which instruction ran).
std::vector<std::string> sass_load_lines(const std::string& sass) {
  std::vector<std::string> out;
  std::size_t pos = 0;
  while (pos < sass.size() && out.size() < 64) {
    std::size_t end = sass.find('\n', pos);
    if (end == std::string::npos) end = sass.size();
    const std::string line = sass.substr(pos, end - pos);
    for (const char* op : {" LDG", " LD.", " LDS", " LDC", " TEX", " TLD", " ULDC"}) {
      if (line.find(op) != std::string::npos && line.find("/*") != std::string::npos) {
        std::string t = line;
        const auto a = t.find_first_not_of(" \t/");
        const auto s = t.find(';');
        out.push_back(t.substr(a == std::string::npos ? 0 : a, s == std::string::npos ? std::string::npos : s - a + 1));
        break;
      }
    }
    pos = end + 1;
  }
  return out;
}


}  // namespace dissect
