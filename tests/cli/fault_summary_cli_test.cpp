// End to end: a fault run's summary carries the failure-free run it measures its drop against.
#include "../support/cli.hpp"

namespace {
using namespace llmsim::test;

TEST_F(Cli, AFaultRunCarriesItsFailureFreeRunsSummary) {
  // summary.json failure_free_run is the run of the same scenario without failures: its iteration, time breakdown
  // and memory, so a fault run's time can be traced to its categories like any other run.
  const std::string file = "scenarios/faults/mecefo-350m.json";
  const auto faults = run_summary(file, "--set output.trace=false");
  const auto plain = run_summary(file, "--set output.trace=false --set faults.process=none --set strategies.fault_tolerance=none");
  const auto& ff = faults["failure_free_run"];
  EXPECT_DOUBLE_EQ(ff["iteration_time_s"].get<double>(), plain["iteration_time_s"].get<double>());
  EXPECT_DOUBLE_EQ(ff["iteration_time_s"].get<double>(), faults["iteration_time_s"].get<double>());
  EXPECT_EQ(ff["time_breakdown_s"], plain["time_breakdown_s"]);
  EXPECT_EQ(ff["peak_memory_bytes"], plain["peak_memory_bytes"]);
  EXPECT_FALSE(ff.contains("scenario"));  // stated once, at the top
}

}  // namespace
