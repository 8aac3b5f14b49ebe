// Tutel-style pipelining on the OLMoE scenario (2 nodes, ep 8 inside each node): chunking a MoE layer in R = 4
// overlaps expert compute with the all-to-alls, so less all-to-all time is exposed and the iteration is faster
// than vanilla expert parallelism, although each expert GEMM sees a quarter of the tokens.
#include "../support/cli.hpp"

namespace {
using namespace llmsim::test;

class MoePipelineRun : public Cli {
 protected:
  json summary(const std::string& pipeline) {
    return run_summary("scenarios/moe/olmoe-ep8-a100.json",
                       "--set output.trace=false --set 'strategies.moe_pipeline=" + pipeline + "'");
  }
};
}  // namespace

TEST_F(MoePipelineRun, TutelHidesAllToAllTimeBehindExpertCompute) {
  const auto vanilla = summary("vanilla-ep"), tutel = summary("{\"name\": \"tutel\", \"chunks\": 4}");
  EXPECT_LT(tutel["time_breakdown_s"]["ep_comm"].get<double>(), 0.5 * vanilla["time_breakdown_s"]["ep_comm"].get<double>());
  EXPECT_LT(tutel["iteration_time_s"].get<double>(), vanilla["iteration_time_s"].get<double>());
  EXPECT_GT(tutel["time_breakdown_s"]["gemm"].get<double>(), vanilla["time_breakdown_s"]["gemm"].get<double>());
}
