// The on-disk compile cache: keyed by source, arch and NVRTC; atomic; shared by concurrent runs.
#include <doctest/doctest.h>

#include <sys/wait.h>
#include <unistd.h>

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

TEST_CASE("a truncated, emptied or random CUBIN or PTX is a miss, compiled again and repaired") {
  test::TempDir dir;
  const CompileCache cache(dir.path());
  const GeneratedKernel g = small_kernel();
  const CompiledKernel good = compile_cached(g, arch(), cache);
  const std::string cubin_path = dir.file(good.cache_key + ".cubin");
  for (const std::string& damaged : {good.cubin.substr(0, good.cubin.size() / 2), std::string(),
                                     std::string("\x7f" "ELF random bytes")}) {
    dir.write(good.cache_key + ".cubin", damaged);
    CHECK_FALSE(cache.find(good.cache_key).has_value());
    const CompiledKernel again = compile_cached(g, arch(), cache);
    CHECK_FALSE(again.from_cache);  // recompiled ...
    CHECK(again.cubin == good.cubin);
    CHECK(test::read_file(cubin_path) == good.cubin);  // ... and the entry repaired
    CHECK(compile_cached(g, arch(), cache).from_cache);
  }
  dir.write(good.cache_key + ".ptx", good.ptx.substr(0, 10));
  CHECK_FALSE(cache.find(good.cache_key).has_value());  // with text: the PTX is checked too
  CompiledKernel k = *cache.find(good.cache_key, false);
  CHECK_FALSE(cache.load_text(k));
  // An entry of an older dissect (no checksums) is a miss too.
  dir.write(good.cache_key + ".json", "{\"arch\": \"sm_90\"}");
  CHECK_FALSE(cache.find(good.cache_key, false).has_value());
}

TEST_CASE("concurrent processes storing and reading one key only ever get a verified entry") {
  // Processes, not threads: what the cache must survive is other dissect runs.
  test::TempDir dir;
  const std::string key = "0123456789abcdef0123456789abcdef";
  constexpr int kProcesses = 4, kRounds = 40;
  std::vector<pid_t> children;
  for (int i = 0; i < kProcesses; ++i) {
    const pid_t pid = ::fork();
    REQUIRE(pid >= 0);
    if (pid == 0) {
      const CompileCache cache(dir.path());
      int bad = 0;
      for (int r = 0; r < kRounds; ++r) {
        // Every writer stores its own content: a reader mixing two writers' files fails the checksum.
        CompiledKernel k;
        k.arch = "sm_90";
        k.cubin = std::string(4096 + 64 * static_cast<std::size_t>(i), static_cast<char>('a' + i));
        k.ptx = std::string(1024, static_cast<char>('A' + i));
        cache.store(key, k);
        if (const auto hit = cache.find(key)) {
          const char c = hit->cubin.empty() ? '?' : hit->cubin[0];
          const std::size_t writer = static_cast<std::size_t>(c - 'a');
          if (writer >= kProcesses || hit->cubin != std::string(4096 + 64 * writer, c) ||
              hit->ptx != std::string(1024, static_cast<char>('A' + writer)))
            ++bad;
        }
      }
      ::_exit(bad == 0 ? 0 : 1);
    }
    children.push_back(pid);
  }
  int failed = 0;
  for (const pid_t pid : children) {
    int status = 0;
    ::waitpid(pid, &status, 0);
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) ++failed;
  }
  CHECK(failed == 0);
  // Writers of one key that store different bytes (never the case in use: the key hashes the
  // source) may leave one writer's CUBIN beside another's checksums; that entry is then a miss,
  // never a mix, and the next store repairs it.
  const CompileCache cache(dir.path());
  if (const auto last = cache.find(key)) {
    const char c = last->cubin.empty() ? '?' : last->cubin[0];
    const std::size_t writer = static_cast<std::size_t>(c - 'a');
    REQUIRE(writer < kProcesses);
    CHECK(last->cubin == std::string(4096 + 64 * writer, c));
  }
  CompiledKernel k;
  k.arch = "sm_90";
  k.cubin = std::string(4096, 'a');
  k.ptx = std::string(1024, 'A');
  REQUIRE(cache.store(key, k));
  const auto repaired = cache.find(key);
  REQUIRE(repaired.has_value());
  CHECK(repaired->cubin == k.cubin);
}
