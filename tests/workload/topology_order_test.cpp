// Gradient-reduction groups are rung as NCCL's topology search rings a communicator, whatever the rank order:
// each node's workers together. A data-parallel group whose replicas alternate between nodes in rank order
// (cp inside the node, parallelism.rank_order tp-cp-dp-pp) then reduces as fast as the same GPUs in node order.
#include <gtest/gtest.h>

#include "../support/cli.hpp"
#include "llmsim/workload/program.hpp"

namespace llmsim::test {
namespace {

TEST(TopologyOrder, GroupsEachNodesWorkersInNodeOrder) {
  workload::Workload w;
  for (int node : {1, 0, 1, 0, 2}) w.workers.push_back({node, 0, 1, 0, 0, {}});
  w.workers[2].first_local = 4;  // the second worker of node 1 sits on GPU 4, the first on GPU 0
  EXPECT_EQ(workload::in_topology_order({2, 0, 4, 1, 3}, w), (std::vector<int>{1, 3, 0, 2, 4}));
  EXPECT_EQ(workload::in_topology_order({}, w), std::vector<int>{});
}

class RankOrderGradientSync : public Cli {
 protected:
  /// Exposed gradient communication of the default model on 16 H100 (2 nodes) at `layout`, fused attention.
  double dp_comm(const std::string& layout) {
    const auto r = run("run '" + source("scenarios/default.json") +
                       "' --out out --set hardware=H100-SXM5-80GB --set parallelism.tp=1 --set parallelism.pp=1 "
                       "--set training.attention=flash --set strategies.pipeline_schedule=1f1b "
                       "--set output.trace=false --log-level warn " + layout);
    EXPECT_EQ(r.code, 0) << r.err;
    const json s = json::parse(read_file(dir_ / "out" / "summary.json"));
    fs::remove_all(dir_ / "out");
    return s["time_breakdown_s"]["dp_comm"].get<double>();
  }
};

TEST_F(RankOrderGradientSync, RankOrderDoesNotChangeTheDataParallelRing) {
  // cp 2 x dp 8: the gradients of all 16 replicas reduce over one group of the 16 GPUs either way. With cp inside
  // the node, the replicas in rank order alternate nodes four times; NCCL still rings them node by node, as for a
  // plain dp 16 job on the same GPUs (same bytes per GPU: every replica holds the whole model).
  const double plain = dp_comm("--set parallelism.dp=16");
  const double cp_inside = dp_comm("--set parallelism.dp=8 --set parallelism.cp=2 --set parallelism.rank_order=tp-cp-dp-pp");
  const double cp_across = dp_comm("--set parallelism.dp=8 --set parallelism.cp=2 --set parallelism.rank_order=tp-dp-cp-pp");
  EXPECT_GT(plain, 0);
  EXPECT_NEAR(cp_inside, plain, 1e-9 * plain + 1e-12);
  EXPECT_NEAR(cp_across, plain, 1e-9 * plain + 1e-12);
}

}  // namespace
}  // namespace llmsim::test
