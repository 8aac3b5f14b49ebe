// Folding of identical data-parallel replicas (workload/replica_fold.hpp): which replicas are simulated, the
// groups they form, and the whole group's bytes and latency hops in the folded plans.
#include <gtest/gtest.h>

#include "../support/scenarios.hpp"
#include "llmsim/collectives/algorithms.hpp"
#include "llmsim/collectives/alpha_beta.hpp"
#include "llmsim/collectives/ring.hpp"
#include "llmsim/hardware/compute_model.hpp"
#include "llmsim/strategy/training_strategies.hpp"
#include "llmsim/workload/training.hpp"

namespace llmsim {
namespace {

using collectives::Algorithm;
using collectives::Kind;

// GPT 1.7B on 32 DGX nodes of a selene fat-tree whose leaf switches have 8 ports: 4 nodes per leaf group
// (radix 8, half down, rail-optimised), tp 2 (4 tp groups per node), pp 1, dp 128.
workload::TrainingPlan plan(std::vector<std::string> sets, const std::string& scenario = "scenarios/default.json") {
  sets.insert(sets.begin(), {"cluster.nodes=32", "cluster.topology.leaf_radix=8", "parallelism.pp=1",
                             "training.global_batch=256", "strategies.pipeline_schedule=1f1b"});
  const auto s = test::shipped(scenario, sets);
  const hardware::ComputeModel cm(s.hardware);
  return workload::build_training(s, cm, strategy::build_training_strategies(s));
}

TEST(ReplicaFold, SimulatesTheReplicasOfTwoLeafGroups) {
  // Two leaf groups = 8 nodes = 32 tp groups of 2 GPUs: dp indices 0..31 of 128.
  const auto p = plan({});
  EXPECT_EQ(p.layout.simulated_dp, 32);
  ASSERT_EQ(p.workload.workers.size(), 32u);
  EXPECT_EQ(p.workload.workers.back().node, 7);
  EXPECT_EQ(p.workload.groups[0].size(), 32u);  // the dp group, the first group made
  ASSERT_EQ(p.workload.represents.count(0), 1u);
  EXPECT_EQ(p.workload.represents.at(0), 128);
  // The job's totals stay those of all 128 replicas.
  EXPECT_EQ(p.layout.dp, 128);
  EXPECT_EQ(p.micro_batches, 2);
}

TEST(ReplicaFold, OffOrOversubscribedSimulatesEveryReplica) {
  EXPECT_EQ(plan({"network.fold_replicas=false"}).workload.workers.size(), 128u);
  EXPECT_TRUE(plan({"network.fold_replicas=false"}).workload.represents.empty());
  // A tapered tier: a tree's edges crossing units would load it more with the whole group than folded.
  EXPECT_EQ(plan({"cluster.topology.oversubscription=2"}).layout.simulated_dp, 128);
  // An algorithm whose flows depend on the whole group (halving-doubling pairs ranks 2^k apart).
  EXPECT_EQ(plan({"network.collective_algorithm=halving-doubling"}).layout.simulated_dp, 128);
}

TEST(ReplicaFold, WholeNodesAndWholeExpertGroups) {
  // tp 1: 8 replicas per node, 8 nodes -> 64.
  EXPECT_EQ(plan({"parallelism.tp=1", "training.global_batch=512"}).layout.simulated_dp, 64);
  // tp 8 (one replica per node) with 48 nodes: 8 nodes -> 8 replicas.
  EXPECT_EQ(plan({"cluster.nodes=48", "parallelism.tp=8", "training.global_batch=96"}).layout.simulated_dp, 8);
}

TEST(ReplicaFold, ExpertGroupsStayWholeAndTwoOfThemRemain) {
  // OLMoE, tp 1, dp 256 on 32 nodes: 64 replicas cover 8 nodes; with ep 64 the replicas holding the same experts
  // need two ep groups (128), each experts' gradient group then has 2 members standing for 256 / 64 = 4.
  const auto ep8 = plan({"parallelism.ep=8"}, "scenarios/moe/olmoe-ep8-a100.json");
  EXPECT_EQ(ep8.layout.simulated_dp, 64);
  const auto ep64 = plan({"parallelism.ep=64"}, "scenarios/moe/olmoe-ep8-a100.json");
  EXPECT_EQ(ep64.layout.simulated_dp, 128);
  int expert_groups = 0;
  for (const auto& [group, represents] : ep64.workload.represents)
    if (represents == 4) {
      ++expert_groups;
      EXPECT_EQ(ep64.workload.groups[group].size(), 2u);
    }
  EXPECT_EQ(expert_groups, 64);
}

collectives::GroupLayout folded(std::vector<int> nodes, int represents) {
  collectives::GroupLayout l;
  l.node_of_member = std::move(nodes);
  l.represented = represents;
  return l;
}

TEST(ReplicaFold, RingCarriesTheWholeGroupsBytesAndHops) {
  // 4 members, 2 per node on 2 nodes (2 channels), standing for 16: each edge of a channel carries
  // 2 (16-1)/16 S / 2 and the ring waits 2 (16-1) - 1 = 29 more latency hops after its flows.
  const auto p = collectives::make_plan(Kind::AllReduce, Algorithm::Ring, folded({0, 0, 1, 1}, 16), 1600.0);
  ASSERT_EQ(p.steps.size(), 1u);
  EXPECT_EQ(p.steps[0].transfers.size(), 8u);
  EXPECT_DOUBLE_EQ(p.steps[0].transfers[0].bytes, 2.0 * 15 / 16 * 1600 / 2);
  EXPECT_EQ(p.steps[0].extra_latency_hops, 29);
}

TEST(ReplicaFold, TreeWaitsTheWholeGroupsDepth) {
  // Double binary tree over 4 members for 64: half the buffer per edge, depth floor(log2 64) = 6.
  const auto p = collectives::make_plan(Kind::AllReduce, Algorithm::Tree, folded({0, 1, 2, 3}, 64), 1000.0);
  ASSERT_EQ(p.steps.size(), 2u);
  EXPECT_DOUBLE_EQ(p.steps[0].transfers[0].bytes, 500.0);
  EXPECT_EQ(p.steps[0].extra_latency_hops, 5);
}

TEST(ReplicaFold, HierarchicalRingAcrossTheWholeGroupsNodes) {
  // 2 nodes of 2 present for 8 nodes of 2: the cross-node ring all-reduces S/2 over 8 nodes.
  const auto p = collectives::make_plan(Kind::AllReduce, Algorithm::Hierarchical, folded({0, 0, 1, 1}, 16), 1600.0);
  ASSERT_EQ(p.steps.size(), 3u);
  EXPECT_DOUBLE_EQ(p.steps[1].transfers[0].bytes, 2.0 * 7 / 8 * 800);
  EXPECT_EQ(p.steps[1].extra_latency_hops, 2 * 7 - 1);
}

TEST(ReplicaFold, OnlyAlgorithmsThatFoldAreSupported) {
  const auto l = folded({0, 1, 2, 3}, 64);
  EXPECT_FALSE(collectives::supports(Kind::AllReduce, Algorithm::HalvingDoubling, l));
  EXPECT_FALSE(collectives::supports(Kind::AllReduce, Algorithm::Direct, l));
  EXPECT_TRUE(collectives::supports(Kind::ReduceScatter, Algorithm::Ring, l));
}

}  // namespace
}  // namespace llmsim
