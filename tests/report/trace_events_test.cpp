// The size bound of trace.json / events.csv: report::trace_events counts each selected GPU's worker's ops in the
// selected iterations, and a run whose trace would exceed limits::kMaxTraceEvents is refused before simulating.
#include <gtest/gtest.h>

#include "../support/cli.hpp"
#include "../support/scenarios.hpp"
#include "llmsim/hardware/compute_model.hpp"
#include "llmsim/report/trace.hpp"
#include "llmsim/strategy/training_strategies.hpp"
#include "llmsim/workload/build_plan.hpp"

namespace llmsim::test {
namespace {

TEST(TraceEvents, EachSelectedGpuCountsItsWorkersOpsInTheSelectedIterations) {
  // The default scenario: 2 iterations, 8 workers (tp groups) of 2 GPUs each.
  const auto s = shipped("scenarios/default.json");
  const hardware::ComputeModel cm(s.hardware);
  const auto plan = workload::build_plan(s, cm, strategy::build_training_strategies(s));
  ASSERT_EQ(plan.workload.iterations, 2);
  double ops = 0, first_worker = -1;
  for (const auto& w : plan.workload.workers) {
    ASSERT_EQ(w.width, 2);
    ops += static_cast<double>(w.ops.size());
    if (w.first_rank == 0) first_worker = static_cast<double>(w.ops.size());
  }
  report::TraceSelection all;
  for (int r = 0; r < 16; ++r) all.ranks.push_back(r);
  EXPECT_DOUBLE_EQ(report::trace_events(plan.workload, all), 2 * ops);  // both lanes of every worker
  report::TraceSelection first_iteration = all;
  first_iteration.last_iteration = 0;
  EXPECT_DOUBLE_EQ(report::trace_events(plan.workload, first_iteration), ops);  // half the iterations
  report::TraceSelection gpu0;
  gpu0.ranks = {0};
  EXPECT_DOUBLE_EQ(report::trace_events(plan.workload, gpu0), first_worker);  // one lane of one worker
}

TEST_F(Cli, ATraceBeyondItsBoundIsRefusedNamingTheFieldThatSelectsIt) {
  // 640 sequences x 1000 iterations on 16 GPUs: about 2.6e7 events, above 1e7.
  const std::string base = "validate '" + source("scenarios/default.json") +
                           "' --set training.global_batch=640 --set training.iterations=1000";
  expect_input_error(run(base), "/output/trace_max_gpus: trace.json would hold about 2.6e+07 events");
  expect_input_error(run(base + " --set output.trace_ranks=0-14"), "/output/trace_ranks: trace.json would hold");
  EXPECT_EQ(run(base + " --set output.trace_iterations=0:9").code, 0);
  EXPECT_EQ(run(base + " --set output.trace=false").code, 0);
  expect_input_error(run(base + " --set output.trace=false --set output.events_csv=true"),
                     "/output/trace_max_gpus: events.csv would hold about 2.6e+07 events");
}

}  // namespace
}  // namespace llmsim::test
