// End to end: Oobleck's re-instantiated pipelines (fewer nodes, the batch re-balanced) with a schedule that
// constrains the micro-batch count (interleaved 1F1B: a multiple of pp).
#include "../support/cli.hpp"

namespace {
using namespace llmsim::test;

TEST_F(Cli, OobleckReinstantiatesInterleavedPipelinesWithAWholeNumberOfRounds) {
  // On fewer nodes the re-balanced batch gives each pipeline a micro-batch count interleaved 1F1B cannot run
  // (not a multiple of pp); Oobleck's templates round it up instead of failing.
  const auto s = run_summary("scenarios/regression/faults-oobleck.json",
                             "--set strategies.pipeline_schedule=interleaved-1f1b");
  // 4 nodes of 8 GPUs at pp 4: 8 pipelines of 512 / 8 = 64 samples. On 3 nodes 6 pipelines take
  // ceil(512 / 6) = 86 samples each, 22 micro-batches of 4, rounded up to 24 (a multiple of pp 4).
  EXPECT_GT(s["faults"]["degraded_h"].get<double>(), 0);  // it ran on fewer nodes
  bool three = false;
  for (const auto& t : s["templates"]) {
    if (t["nodes"] != 3) continue;
    three = true;
    EXPECT_EQ(t["parallelism"]["dp"], 6);
    EXPECT_EQ(t["parallelism"]["micro_batches"], 24);
    EXPECT_GT(t["iteration_time_s"].get<double>(), 0);
  }
  EXPECT_TRUE(three) << s.dump();
}

}  // namespace
