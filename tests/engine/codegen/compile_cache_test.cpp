// The on-disk compile cache: keyed by source, arch and NVRTC; atomic; shared by concurrent runs.
#include <doctest/doctest.h>

#include <chrono>
#include <filesystem>
#include <thread>

#include "codegen_test_support.hpp"
#include "engine/device/kernel_family.hpp"
#include "engine/codegen/compile_cache.hpp"
#include "support/temp_dir.hpp"

using namespace dissect;

namespace {
GeneratedKernel small_kernel() {
  static const TemplateLoader l(DISSECT_SOURCE_DIR "/kernels_templates");
  return instantiate(kernel_params(test::pchase_experiment("cg")), l);
}
int arch() { return NvrtcCompiler::supported_archs().back() >= 90 && NvrtcCompiler::supports(90) ? 90 : NvrtcCompiler::supported_archs().front(); }
}  // namespace

TEST_CASE("keys change with the source and the arch, not otherwise") {
  const GeneratedKernel g = small_kernel();
  CHECK(CompileCache::key(g.source, 90, true) == CompileCache::key(g.source, 90, true));
  CHECK(CompileCache::key(g.source, 90, true) != CompileCache::key(g.source, 80, true));
  CHECK(CompileCache::key(g.source, 90, true) != CompileCache::key(g.source, 90, false));
  CHECK(CompileCache::key(g.source, 90, true) != CompileCache::key(g.source + " ", 90, true));
}

TEST_CASE("a miss compiles and stores; a hit returns the same CUBIN quickly") {
  test::TempDir dir;
  const CompileCache cache(dir.path());
  const GeneratedKernel g = small_kernel();
  const CompiledKernel cold = compile_cached(g, arch(), cache);
  CHECK_FALSE(cold.from_cache);
  CHECK(std::filesystem::exists(dir.file(cold.cache_key + ".cubin")));
  const CompiledKernel warm = compile_cached(g, arch(), cache);
  CHECK(warm.from_cache);
  CHECK(warm.cubin == cold.cubin);
  CHECK(warm.ptx == cold.ptx);
  CHECK(warm.log == cold.log);
  CHECK(warm.arch == cold.arch);
  MESSAGE("cold compile " << cold.compile_ms << " ms, warm lookup " << warm.compile_ms << " ms");
  CHECK(warm.compile_ms < cold.compile_ms);
}

TEST_CASE("an entry without its CUBIN (a writer that died) is a miss") {
  test::TempDir dir;
  const CompileCache cache(dir.path());
  const GeneratedKernel g = small_kernel();
  const std::string key = CompileCache::key(g.source, arch(), true);
  dir.write(key + ".ptx", "partial");
  dir.write(key + ".json", "{\"arch\": \"sm_90\"}");
  CHECK_FALSE(cache.find(key).has_value());
}

TEST_CASE("concurrent compiles of one kernel leave one valid entry") {
  test::TempDir dir;
  const CompileCache cache(dir.path());
  const GeneratedKernel g = small_kernel();
  std::vector<std::thread> threads;
  std::vector<std::string> cubins(4);
  for (int i = 0; i < 4; ++i)
    threads.emplace_back([&, i] { cubins[static_cast<std::size_t>(i)] = compile_cached(g, arch(), cache).cubin; });
  for (auto& t : threads) t.join();
  for (const auto& c : cubins) CHECK(c == cubins[0]);
  const auto hit = cache.find(CompileCache::key(g.source, arch(), true));
  REQUIRE(hit.has_value());
  CHECK(hit->cubin == cubins[0]);
  std::size_t tmp = 0;
  for (const auto& f : std::filesystem::directory_iterator(dir.path()))
    if (f.path().filename().string().find(".tmp") != std::string::npos) ++tmp;
  CHECK(tmp == 0);
}

TEST_CASE("a lookup without text reads the CUBIN only; load_text adds the PTX and the log") {
  test::TempDir dir;
  const CompileCache cache(dir.path());
  const GeneratedKernel g = small_kernel();
  const CompiledKernel full = compile_cached(g, arch(), cache);
  CHECK_FALSE(full.text_pending);
  CompiledKernel copy = full;
  CHECK(cache.load_text(copy));  // nothing pending: nothing read
  CHECK(copy.ptx == full.ptx);

  CompiledKernel k = compile_cached(g, arch(), cache, true, false);
  CHECK(k.from_cache);
  CHECK(k.text_pending);
  CHECK(k.cubin == full.cubin);
  CHECK(k.arch == full.arch);
  CHECK(k.ptx.empty());
  REQUIRE(cache.load_text(k));
  CHECK_FALSE(k.text_pending);
  CHECK(k.ptx == full.ptx);
  CHECK(k.log == full.log);

  // The PTX gone between the lookup and the report: load_text says so.
  const auto partial = lookup_cached(g, arch(), cache, true, false);
  REQUIRE(partial.has_value());
  std::filesystem::remove(dir.file(full.cache_key + ".ptx"));
  CompiledKernel p = *partial;
  CHECK_FALSE(cache.load_text(p));
  CHECK(p.text_pending);
  // ... and a lookup that wants the text is a miss.
  CHECK_FALSE(lookup_cached(g, arch(), cache).has_value());
}
