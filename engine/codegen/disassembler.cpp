#include "engine/codegen/disassembler.hpp"

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <sstream>
#include <vector>

#include "engine/core/files.hpp"

namespace dissect {
namespace fs = std::filesystem;

namespace {
bool executable(const fs::path& p) { return ::access(p.c_str(), X_OK) == 0 && fs::is_regular_file(p); }

// cuobjdump follows every instruction with its encoding, "/* 0x0123456789abcdef */",
// and puts the second half of it on a line of its own: readable SASS is a third of
// the size without them.
bool is_encoding_comment(const std::string& s, std::size_t at) {
  return s.compare(at, 5, "/* 0x") == 0 && at + 24 <= s.size() && s.compare(at + 21, 3, " */") == 0;
}

std::string strip_encodings(const std::string& sass) {
  std::string out;
  out.reserve(sass.size() / 3);
  std::istringstream in(sass);
  std::string line;
  while (std::getline(in, line)) {
    std::size_t end = line.size();
    while (end > 0 && (line[end - 1] == ' ' || line[end - 1] == '\t')) --end;
    if (end >= 24 && is_encoding_comment(line, end - 24)) end -= 24;
    while (end > 0 && (line[end - 1] == ' ' || line[end - 1] == '\t')) --end;
    if (end == 0) continue;
    out.append(line, 0, end);
    out += '\n';
  }
  return out;
}
}  // namespace

std::string find_disassembler() {
  if (const char* v = std::getenv("DISSECT_CUOBJDUMP"); v != nullptr && *v != '\0') return executable(v) ? v : "";
  std::vector<fs::path> dirs;
  if (const char* path = std::getenv("PATH")) {
    std::istringstream in(path);
    std::string d;
    while (std::getline(in, d, ':'))
      if (!d.empty()) dirs.emplace_back(d);
  }
  dirs.emplace_back("/usr/local/cuda/bin");
  for (const char* tool : {"cuobjdump", "nvdisasm"})
    for (const auto& d : dirs)
      if (executable(d / tool)) return (d / tool).string();
  return "";
}

std::string disassemble_cubin(const std::string& cubin, std::string* why) {
  const std::string tool = find_disassembler();
  if (tool.empty()) {
    if (why) *why = "no cuobjdump or nvdisasm found";
    return "";
  }
  std::string tmpl = (fs::temp_directory_path() / "dissect-XXXXXX.cubin").string();
  const int fd = ::mkstemps(tmpl.data(), 6);
  if (fd < 0) {
    if (why) *why = "cannot create a temporary file";
    return "";
  }
  ::close(fd);
  std::string out;
  try {
    write_file_atomic(tmpl, cubin);
    const bool is_cuobjdump = fs::path(tool).filename() == "cuobjdump";
    const std::string cmd = "'" + tool + "' " + (is_cuobjdump ? "-sass '" : "'") + tmpl + "' 2>&1";
    if (FILE* p = ::popen(cmd.c_str(), "r")) {
      char buf[4096];
      std::size_t n;
      while ((n = std::fread(buf, 1, sizeof buf, p)) > 0) out.append(buf, n);
      const int rc = ::pclose(p);
      if (rc != 0) {
        if (why) *why = tool + " failed: " + out.substr(0, 300);
        out.clear();
      } else {
        out = strip_encodings(out);
      }
    }
  } catch (const std::exception& e) {
    if (why) *why = e.what();
    out.clear();
  }
  std::error_code ec;
  fs::remove(tmpl, ec);
  return out;
}

}  // namespace dissect
