#include "engine/codegen/nvrtc_compiler.hpp"

#include <nvrtc.h>

#include <algorithm>
#include <chrono>
#include <stdexcept>

#include "engine/core/diagnostics.hpp"

namespace dissect {
namespace {

std::string program_log(nvrtcProgram prog) {
  std::size_t n = 0;
  if (nvrtcGetProgramLogSize(prog, &n) != NVRTC_SUCCESS || n <= 1) return "";
  std::string log(n, '\0');
  if (nvrtcGetProgramLog(prog, log.data()) != NVRTC_SUCCESS) return "";
  log.resize(n - 1);
  return log;
}

void check(nvrtcResult r, const char* call, const std::string& name) {
  if (r != NVRTC_SUCCESS) throw RunError(std::string(call) + " (" + name + "): " + nvrtcGetErrorString(r));
}

std::string archs_text() {
  std::string s;
  for (int a : NvrtcCompiler::supported_archs()) s += (s.empty() ? "sm_" : ", sm_") + std::to_string(a);
  return s;
}

}  // namespace

int parse_arch(const std::string& text) {
  std::string t = text;
  for (const char* prefix : {"sm_", "compute_"})
    if (t.rfind(prefix, 0) == 0) t = t.substr(std::string(prefix).size());
  if (t.empty() || t.size() > 3 || !std::all_of(t.begin(), t.end(), [](char c) { return c >= '0' && c <= '9'; }))
    throw std::invalid_argument("'" + text + "' is not an architecture such as sm_90");
  return std::stoi(t);
}

std::string NvrtcCompiler::version() {
  int major = 0, minor = 0;
  if (nvrtcVersion(&major, &minor) != NVRTC_SUCCESS) return "unknown";
  return std::to_string(major) + "." + std::to_string(minor);
}

std::vector<int> NvrtcCompiler::supported_archs() {
  int n = 0;
  if (nvrtcGetNumSupportedArchs(&n) != NVRTC_SUCCESS || n <= 0) return {};
  std::vector<int> a(static_cast<std::size_t>(n));
  if (nvrtcGetSupportedArchs(a.data()) != NVRTC_SUCCESS) return {};
  return a;
}

bool NvrtcCompiler::supports(int arch) {
  const auto a = supported_archs();
  return std::find(a.begin(), a.end(), arch) != a.end();
}

std::vector<std::string> NvrtcCompiler::options(int arch, bool cubin) {
  std::vector<std::string> o{std::string("--gpu-architecture=") + (cubin ? "sm_" : "compute_") + std::to_string(arch),
                             "-std=c++17"};
  if (cubin) o.push_back("--ptxas-options=-v");  // register / shared-memory report in the log
  return o;
}

CompiledKernel NvrtcCompiler::compile(const std::string& source, const std::string& name, int arch, bool cubin) {
  if (!supports(arch))
    throw RunError("NVRTC " + version() + " cannot compile for sm_" + std::to_string(arch) + " (it supports " +
                   archs_text() + ")");
  const auto t0 = std::chrono::steady_clock::now();
  CompiledKernel out;
  out.arch = (cubin ? "sm_" : "compute_") + std::to_string(arch);
  nvrtcProgram prog = nullptr;
  check(nvrtcCreateProgram(&prog, source.c_str(), (name + ".cu").c_str(), 0, nullptr, nullptr), "nvrtcCreateProgram",
        name);
  struct Guard {
    nvrtcProgram& p;
    ~Guard() { nvrtcDestroyProgram(&p); }
  } guard{prog};
  const std::vector<std::string> opts = options(arch, cubin);
  std::vector<const char*> argv;
  for (const auto& o : opts) argv.push_back(o.c_str());
  const nvrtcResult r = nvrtcCompileProgram(prog, static_cast<int>(argv.size()), argv.data());
  out.log = program_log(prog);
  if (r != NVRTC_SUCCESS)
    throw RunError("NVRTC could not compile kernel " + name + " for " + out.arch + " (" + nvrtcGetErrorString(r) +
                   "):\n" + out.log);
  std::size_t n = 0;
  check(nvrtcGetPTXSize(prog, &n), "nvrtcGetPTXSize", name);
  out.ptx.assign(n, '\0');
  check(nvrtcGetPTX(prog, out.ptx.data()), "nvrtcGetPTX", name);
  if (!out.ptx.empty() && out.ptx.back() == '\0') out.ptx.pop_back();
  if (cubin) {
    check(nvrtcGetCUBINSize(prog, &n), "nvrtcGetCUBINSize", name);
    out.cubin.assign(n, '\0');
    check(nvrtcGetCUBIN(prog, out.cubin.data()), "nvrtcGetCUBIN", name);
  }
  out.compile_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  return out;
}

}  // namespace dissect
