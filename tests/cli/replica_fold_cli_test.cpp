// End to end: folded data-parallel replicas (network.fold_replicas, workload/replica_fold.hpp) against every
// replica simulated, on a fat-tree of 4-node leaf groups where the fold leaves out half or more of the job; and
// re-paired all-to-all flows (network.aggregate_flows, collectives/aggregate.hpp) against every pair's flow.
#include "../support/cli.hpp"

namespace {
using namespace llmsim::test;

class ReplicaFoldCli : public Cli {
 protected:
  /// The default scenario with `extra` over 32 nodes with 8-port leaf switches (4 nodes per leaf group), one
  /// iteration: folded (the default), then with every replica.
  std::pair<json, json> folded_and_exact(const std::string& extra) {
    const std::string base = "--set cluster.nodes=32 --set cluster.topology.leaf_radix=8 --set output.trace=false "
                             "--set training.iterations=1 " + extra;
    return {run_summary("scenarios/default.json", base), run_summary("scenarios/default.json",
                                                                     base + " --set network.fold_replicas=false")};
  }
};

TEST_F(ReplicaFoldCli, DataParallelRingsWithinOnePercentOfEveryReplica) {
  // tp 2, pp 2, dp 64 (interleaved 1F1B): 32 of 64 replicas are simulated.
  const auto [folded, exact] = folded_and_exact("--set training.global_batch=256");
  EXPECT_EQ(folded["parallelism"]["simulated_dp"], 32);
  EXPECT_EQ(exact["parallelism"]["simulated_dp"], 64);
  const double t = exact["iteration_time_s"].get<double>();
  EXPECT_NEAR(folded["iteration_time_s"].get<double>(), t, 0.01 * t);
  EXPECT_NEAR(folded["time_breakdown_s"]["dp_comm"].get<double>(), exact["time_breakdown_s"]["dp_comm"].get<double>(),
              0.01 * t);
  EXPECT_LT(folded["simulated_events"].get<double>(), 0.6 * exact["simulated_events"].get<double>());
}

TEST_F(ReplicaFoldCli, ZeroShardedReplicasWithinOnePercent) {
  // tp 8, pp 1, ZeRO-1 (reduce-scatter, then the parameters' all-gather), dp 32: 8 of 32 replicas.
  const auto [folded, exact] = folded_and_exact(
      "--set parallelism.tp=8 --set parallelism.pp=1 --set training.global_batch=64 --set training.zero_stage=1");
  EXPECT_EQ(folded["parallelism"]["simulated_dp"], 8);
  const double t = exact["iteration_time_s"].get<double>();
  EXPECT_NEAR(folded["iteration_time_s"].get<double>(), t, 0.01 * t);
  EXPECT_EQ(folded["peak_memory_bytes"], exact["peak_memory_bytes"]);  // sharded over all 32, as before
}

TEST_F(ReplicaFoldCli, AggregatedAllToAllsWithinOnePercentOfEveryPair) {
  // OLMoE (routing drawn per layer: uneven pairs) with ep 16 over 2 nodes: each all-to-all has 16 x 15 pairs.
  const std::string base = "--set cluster.nodes=2 --set parallelism.ep=16 --set training.iterations=1 "
                           "--set output.trace=false";
  const auto aggregated = run_summary("scenarios/moe/olmoe-ep8-a100.json", base);
  const auto pairs = run_summary("scenarios/moe/olmoe-ep8-a100.json", base + " --set network.aggregate_flows=false");
  const double t = pairs["iteration_time_s"].get<double>(), ep = pairs["time_breakdown_s"]["ep_comm"].get<double>();
  ASSERT_GT(ep, 0.05 * t);  // the exchanges matter
  EXPECT_NEAR(aggregated["iteration_time_s"].get<double>(), t, 0.01 * t);
  EXPECT_NEAR(aggregated["time_breakdown_s"]["ep_comm"].get<double>(), ep, 0.01 * ep);
  EXPECT_LT(aggregated["simulated_events"].get<double>(), 0.5 * pairs["simulated_events"].get<double>());
}

TEST_F(ReplicaFoldCli, ClosMinipodsFoldWithinOnePercent) {
  // A non-blocking three-tier Clos of 2-node racks, 2 racks per minipod: 16 nodes, tp 2, dp 64; two minipods
  // (8 nodes, 32 replicas) are simulated.
  const std::string base = "--set 'cluster.topology={\"name\": \"clos3\", \"nodes_per_rack\": 2, "
                           "\"racks_per_minipod\": 2}' --set cluster.nodes=16 --set parallelism.pp=1 "
                           "--set training.global_batch=128 --set training.iterations=1 --set output.trace=false "
                           "--set strategies.pipeline_schedule=1f1b";
  const auto folded = run_summary("scenarios/default.json", base);
  const auto exact = run_summary("scenarios/default.json", base + " --set network.fold_replicas=false");
  EXPECT_EQ(folded["parallelism"]["simulated_dp"], 32);
  const double t = exact["iteration_time_s"].get<double>();
  EXPECT_NEAR(folded["iteration_time_s"].get<double>(), t, 0.01 * t);
}

}  // namespace
