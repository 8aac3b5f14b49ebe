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
  EXPECT_GT(s["faults"]["effective_tokens_per_s"].get<double>(), 0);
  EXPECT_GT(s["faults"]["degraded_h"].get<double>(), 0);  // it ran on fewer nodes
}

}  // namespace
