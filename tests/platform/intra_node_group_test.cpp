// platform::intra_node_group_bandwidth: what an analytic tp collective among `group` GPUs of a node reaches.
#include <gtest/gtest.h>

#include "../support/cli.hpp"
#include "llmsim/platform/node.hpp"

namespace llmsim::test {
namespace {

TEST(IntraNodeGroup, AMeshGivesAGroupOnlyItsLinksToTheOtherMembers) {
  // 8 GPUs with 100 units of NVLink each: behind an NVSwitch every group gets all 100; on a mesh each pair link
  // is 100 / 7, so a pair gets 14.3, four GPUs 3 links = 42.9, the whole node 7 links = 100.
  scenario::Cluster c;
  c.gpus_per_node = 8;
  c.intra_node = "nvswitch";
  EXPECT_DOUBLE_EQ(platform::intra_node_group_bandwidth(c, 100, 2), 100);
  c.intra_node = "nvlink-mesh";
  EXPECT_DOUBLE_EQ(platform::intra_node_group_bandwidth(c, 100, 2), 100.0 / 7);
  EXPECT_DOUBLE_EQ(platform::intra_node_group_bandwidth(c, 100, 4), 300.0 / 7);
  EXPECT_DOUBLE_EQ(platform::intra_node_group_bandwidth(c, 100, 8), 100);
  EXPECT_DOUBLE_EQ(platform::intra_node_group_bandwidth(c, 100, 1), 100.0 / 7);  // no collective; a send's one link
}

TEST_F(Cli, AServingReplicaOfOneGpuOnAMeshHasNoCollectiveToPay) {
  // tp 1 has no tp all-reduce and pp 1 no stage send: the step is the same on a mesh as behind a switch (a group of
  // one got no bandwidth at all and SimGrid aborted on the infinite step).
  const std::string base = "step-time '" + source("scenarios/regression/serving-vllm.json") +
                           "' --set parallelism.tp=1 --set model=llama2-7b --decode 8 --context 512 --set cluster.intra_node=";
  const auto mesh = run(base + "nvlink-mesh"), nvswitch = run(base + "nvswitch");
  ASSERT_EQ(mesh.code, 0) << mesh.err;
  EXPECT_EQ(mesh.out, nvswitch.out);
  EXPECT_EQ(json::parse(mesh.out)["time_ms"].is_number(), true) << mesh.out;
}

TEST_F(Cli, ATpGroupFillingAMeshNodeCommunicatesAsBehindASwitchAndAPairDoesNot) {
  // default.json (gpt-1.7b, 8-GPU A100 nodes): tp 8 uses all 7 mesh links of each GPU, the whole NVLink
  // bandwidth, so its tp time equals the NVSwitch node's; tp 2 has one link of 1/7 of it and is slower.
  const std::string quiet = "--set output.trace=false ";
  auto tp_comm = [&](const std::string& fabric, int tp) {
    return run_summary("scenarios/default.json", quiet + "--set cluster.intra_node=" + fabric +
                                                     " --set parallelism.tp=" + std::to_string(tp))["time_breakdown_s"]["tp_comm"]
        .get<double>();
  };
  EXPECT_DOUBLE_EQ(tp_comm("nvlink-mesh", 8), tp_comm("nvswitch", 8));
  EXPECT_GT(tp_comm("nvlink-mesh", 2), 2 * tp_comm("nvswitch", 2));
}

}  // namespace
}  // namespace llmsim::test
