#pragma once
// Finds gnuplot and runs scripts with a time limit. gnuplot is optional: when
// it is missing the report still writes data files and scripts and says how
// to render them.
#include <chrono>
#include <string>

namespace dissect::report {

struct Gnuplot {
  bool found = false;
  std::string path;                       // the executable
  std::string version;                    // "gnuplot 5.4 patchlevel 4"
  std::string png_terminal = "pngcairo";  // "png" when this gnuplot lacks cairo
  bool svg = true;                        // the svg terminal works
  std::string message;                    // one line for humans: what was found or why not
};

// `requested`: a path ("/usr/bin/gnuplot") or a name looked up on PATH; empty
// means $DISSECT_GNUPLOT, else "gnuplot". Probes the version and the
// terminals (pngcairo, else png; svg).
Gnuplot find_gnuplot(const std::string& requested = "",
                     std::chrono::milliseconds timeout = std::chrono::milliseconds(10000));

struct GnuplotRun {
  int status = -1;         // exit status; -1 when it could not start or was killed
  bool timed_out = false;
  std::string output;      // stdout and stderr (the first 64 KiB)
};

// Runs `gnuplot SCRIPT` in `workdir` (where the script and its data are),
// killing it after `timeout`.
GnuplotRun run_gnuplot(const Gnuplot& gnuplot, const std::string& script, const std::string& workdir,
                       std::chrono::milliseconds timeout);

// Looks a program name up on PATH; "" when absent. A name with a '/' is
// returned as is when executable.
std::string find_on_path(const std::string& name);

}  // namespace dissect::report
