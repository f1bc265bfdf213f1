#include <doctest/doctest.h>

#include <cmath>

#include "engine/report/miss_threshold.hpp"
#include "report_test_bundles.hpp"
#include "support/temp_dir.hpp"

using namespace dissect;
using namespace dissect::report;
using dissect::test::TempDir;

TEST_CASE("cluster_levels splits at gaps, ignores rare outliers, reports weighted medians") {
  std::map<std::int64_t, std::uint64_t> h{{30, 7000}, {31, 2000}, {32, 1000}, {300, 1200}, {302, 100}, {9000, 5}};
  CHECK(cluster_levels(h) == std::vector<double>{30, 300});
  CHECK(cluster_levels({}).empty());
  // Jitter within 10 % stays one level.
  std::map<std::int64_t, std::uint64_t> noisy;
  for (std::int64_t l = 400; l <= 460; l += 4) noisy[l] = 50;
  CHECK(cluster_levels(noisy).size() == 1);
  // Three levels.
  std::map<std::int64_t, std::uint64_t> three{{30, 500}, {200, 300}, {450, 200}};
  CHECK(cluster_levels(three) == std::vector<double>{30, 200, 450});
}

TEST_CASE("levels_from_finding reads numbers or objects") {
  CHECK(levels_from_finding({{"details", {{"levels", {300, 30}}}}}) == std::vector<double>{30, 300});
  CHECK(levels_from_finding({{"details", {{"levels", {{{"center", 35}}, {{"median", 250.5}}}}}}}) ==
        std::vector<double>{35, 250.5});
  CHECK(levels_from_finding({{"value", 2}}).empty());
}

TEST_CASE("miss_threshold: from the latency_levels finding, else from the trace") {
  TempDir tmp;
  const ExperimentData with = load_experiment(test::fine_size_bundle(tmp.file("a"), true));
  const MissThreshold t1 = miss_threshold(with);
  CHECK(t1.threshold == doctest::Approx(165));
  CHECK(t1.source.find("latency_levels finding") == 0);

  const ExperimentData without = load_experiment(test::fine_size_bundle(tmp.file("b"), false));
  const MissThreshold t2 = miss_threshold(without);
  CHECK(t2.levels.size() == 2);
  CHECK(t2.threshold > 40);
  CHECK(t2.threshold < 290);
  CHECK(t2.source.find("clustered from the trace") != std::string::npos);

  const ExperimentData flat = load_experiment(test::bank_bundle(tmp.file("c")));
  CHECK(miss_threshold(flat).levels.size() >= 2);  // 30 .. 960 cycles are several levels

  std::vector<Experiment> one{test::report_experiment(KernelKind::pchase, 1024, 4)};
  const ExperimentData single = load_experiment(
      test::write_report_bundle(tmp.file("d"), "one", one, [](const Experiment&, std::uint64_t) { return 30.0; }, 32));
  const MissThreshold t3 = miss_threshold(single);
  CHECK_FALSE(t3.any());
  CHECK(t3.source.find("one latency level") == 0);
  CHECK(single.points[0].count_above(t3.threshold) == 0);
}
