#include <doctest/doctest.h>
#include <sys/stat.h>

#include <chrono>
#include <filesystem>

#include "engine/report/gnuplot_runner.hpp"
#include "support/temp_dir.hpp"

using namespace dissect::report;
using dissect::test::TempDir;

TEST_CASE("find_on_path finds executables by name and by path") {
  CHECK(find_on_path("sh").find("/sh") != std::string::npos);
  CHECK(find_on_path("/bin/sh") == "/bin/sh");
  CHECK(find_on_path("no-such-program-dissect").empty());
  CHECK(find_on_path("").empty());
}

TEST_CASE("find_gnuplot: missing, not gnuplot, found") {
  TempDir tmp;
  const Gnuplot missing = find_gnuplot(tmp.file("nope/gnuplot"));
  CHECK_FALSE(missing.found);
  CHECK(missing.message.find("gnuplot not found at") == 0);
  const std::string fake = tmp.write("fake-gnuplot", "#!/bin/sh\nexit 3\n");
  ::chmod(fake.c_str(), 0755);
  const Gnuplot broken = find_gnuplot(fake);
  CHECK_FALSE(broken.found);
  CHECK(broken.message.find("does not run as gnuplot") != std::string::npos);
  const Gnuplot real = find_gnuplot();
  if (real.found) {
    CHECK(real.version.find("gnuplot") == 0);
    CHECK((real.png_terminal == "pngcairo" || real.png_terminal == "png"));
    CHECK(real.svg);
  }
}

TEST_CASE("run_gnuplot runs in the plot directory and kills a script that takes too long") {
  TempDir tmp;
  // A stand-in that answers --version and sleeps on scripts.
  const std::string fake = tmp.write("slow-gnuplot",
                                     "#!/bin/sh\n"
                                     "case \"$1\" in --version) echo 'gnuplot 9.9 fake'; exit 0;; -e) exit 0;; esac\n"
                                     "pwd > where.txt\nexec sleep 30\n");
  ::chmod(fake.c_str(), 0755);
  const Gnuplot g = find_gnuplot(fake);
  REQUIRE(g.found);
  CHECK(g.version == "gnuplot 9.9 fake");
  std::filesystem::create_directories(tmp.file("plots"));
  const auto t0 = std::chrono::steady_clock::now();
  const GnuplotRun r = run_gnuplot(g, "x.gp", tmp.file("plots"), std::chrono::milliseconds(300));
  CHECK(r.timed_out);
  CHECK(r.status == -1);
  CHECK(std::chrono::steady_clock::now() - t0 < std::chrono::seconds(10));
  CHECK(std::filesystem::exists(tmp.file("plots/where.txt")));
}

TEST_CASE("run_gnuplot reports gnuplot's errors") {
  const Gnuplot g = find_gnuplot();
  if (!g.found) return;
  TempDir tmp;
  tmp.write("bad.gp", "set frobnicate\n");
  const GnuplotRun r = run_gnuplot(g, "bad.gp", tmp.path(), std::chrono::seconds(30));
  CHECK(r.status != 0);
  CHECK(r.output.find("frobnicate") != std::string::npos);
}

TEST_CASE("run_gnuplot captures stdout and stderr, reads nothing from stdin, and says when it cannot start") {
  TempDir tmp;
  const std::string fake = tmp.write("echo-gnuplot",
                                     "#!/bin/sh\n"
                                     "case \"$1\" in --version) echo 'gnuplot 9.9 fake'; exit 0;; -e) exit 0;; esac\n"
                                     "echo out-$1; echo err-$1 >&2; cat; exit 4\n");
  ::chmod(fake.c_str(), 0755);
  const Gnuplot g = find_gnuplot(fake);
  REQUIRE(g.found);
  const GnuplotRun r = run_gnuplot(g, "a.gp", tmp.path(), std::chrono::seconds(30));
  CHECK_FALSE(r.timed_out);
  CHECK(r.status == 4);
  CHECK(r.output.find("out-a.gp") != std::string::npos);
  CHECK(r.output.find("err-a.gp") != std::string::npos);
  // A plot directory that is gone: no process, and the reason.
  const GnuplotRun gone = run_gnuplot(g, "a.gp", tmp.file("no/such/dir"), std::chrono::seconds(30));
  CHECK(gone.status == -1);
  CHECK(gone.output.find("no directory") == 0);
  // A program that cannot be executed: no process, and the reason.
  Gnuplot broken = g;
  broken.path = tmp.file("not-there");
  const GnuplotRun absent = run_gnuplot(broken, "a.gp", tmp.path(), std::chrono::seconds(30));
  CHECK(absent.status == -1);
  CHECK(absent.output.find("cannot start") == 0);
}
