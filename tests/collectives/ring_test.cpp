// Ring collectives: closed forms, and the engine's flow-based ring against them on an uncongested cluster.
#include <gtest/gtest.h>

#include "../support/network.hpp"
#include "../support/scenarios.hpp"
#include "llmsim/collectives/algorithms.hpp"
#include "llmsim/collectives/ring.hpp"
#include "llmsim/engine/engine.hpp"

using namespace llmsim;
using collectives::Kind;

TEST(RingFormulas, BytesAndStepsPerRank) {
  EXPECT_DOUBLE_EQ(collectives::ring_edge_bytes(Kind::AllReduce, 8, 800.0), 2 * 7 * 100.0);
  EXPECT_DOUBLE_EQ(collectives::ring_edge_bytes(Kind::ReduceScatter, 8, 800.0), 700.0);
  EXPECT_DOUBLE_EQ(collectives::ring_edge_bytes(Kind::AllGather, 4, 400.0), 300.0);
  EXPECT_EQ(collectives::ring_steps(Kind::AllReduce, 8), 14);
  EXPECT_EQ(collectives::ring_steps(Kind::AllGather, 8), 7);
  EXPECT_DOUBLE_EQ(collectives::ring_time(Kind::AllReduce, 1, 1e9, 1e9, 1e-6), 0.0);
  // 2(n-1)/n * S/B + 2(n-1)*alpha with n = 4, S = 1 GB, B = 10 GB/s, alpha = 5 us.
  EXPECT_DOUBLE_EQ(collectives::ring_time(Kind::AllReduce, 4, 1e9, 1e10, 5e-6), 1.5 * 0.1 + 6 * 5e-6);
}

namespace {
/// One collective of `bytes` per GPU over `n` nodes (one GPU each, tp 1) and the time the engine takes.
double simulated_collective(Kind kind, int n, double bytes, const scenario::Scenario& s) {
  workload::Workload w;
  std::vector<int> group;
  for (int i = 0; i < n; ++i) {
    workload::Worker wk;
    wk.node = i;
    wk.first_rank = i * s.cluster.gpus_per_node;
    wk.ops = {workload::start_collective(0), workload::wait_collective(0), workload::end_iteration(0)};
    w.workers.push_back(wk);
    group.push_back(i);
  }
  w.groups = {group};
  w.collectives = {{"test", 0, kind, bytes, workload::TimeCategory::DpComm}};
  const auto rec = engine::run_workload(w, s, std::vector<bool>(n, false));
  return rec.iteration_ends()[0];
}
}  // namespace

TEST(RingOnPlatform, UncongestedAllReduceMatchesClosedForm) {
  const auto s = test::shipped("scenarios/default.json", {"cluster.nodes=8", "parallelism.tp=1", "parallelism.pp=1"});
  const int n = 8;
  const double S = 256e6;
  // Inter-node ring edge inside one leaf group: NIC, leaf, NIC.
  const double B = test::nic(s), alpha = test::leaf_alpha(s);
  const double expected = 2.0 * (n - 1) / n * S / B + 2 * (n - 1) * alpha;
  EXPECT_NEAR(simulated_collective(Kind::AllReduce, n, S, s), expected, 1e-9 * expected);
}

TEST(RingOnPlatform, UncongestedAllGatherMatchesClosedForm) {
  const auto s = test::shipped("scenarios/default.json", {"cluster.nodes=4", "parallelism.tp=1", "parallelism.pp=1"});
  const int n = 4;
  const double S = 64e6;
  const double B = test::nic(s), alpha = test::leaf_alpha(s);
  EXPECT_NEAR(simulated_collective(Kind::AllGather, n, S, s), (n - 1.0) / n * S / B + (n - 1) * alpha, 1e-9);
}

TEST(RingChannels, OneChannelPerMemberOfANodeLeavingFromDifferentGpus) {
  // 3 nodes x 2 members: channel 0 enters each node at member 1 and leaves from member 0.
  const auto ch = collectives::ring_channels({0, 0, 1, 1, 2, 2});
  ASSERT_EQ(ch.size(), 2u);
  EXPECT_EQ(ch[0], (std::vector<int>{1, 0, 3, 2, 5, 4}));
  EXPECT_EQ(ch[1], (std::vector<int>{0, 1, 2, 3, 4, 5}));
  // One member per node, uneven nodes, or a single node: one channel in member order.
  EXPECT_EQ(collectives::ring_channels({0, 1, 2}).size(), 1u);
  EXPECT_EQ(collectives::ring_channels({0, 0, 1}).size(), 1u);
  EXPECT_EQ(collectives::ring_channels({0, 0, 0, 0}).size(), 1u);
}

TEST(RingChannels, APointToPointRingIsOneFlowPerHopInMemberOrder) {
  // Transformer Engine's cp ring over 2 nodes x 2 members: each member sends to the next one, so the two hops
  // between the nodes (1 -> 2, 3 -> 0) each leave through one GPU's NIC with the whole edge, (n - 1) / n S of an
  // all-gather. NCCL's two channels would split each edge over both GPUs of a node (two NICs at S (n - 1) / 2n).
  collectives::GroupLayout layout;
  layout.node_of_member = {0, 0, 1, 1};
  layout.point_to_point = true;
  const auto steps = collectives::ring_steps_plan(Kind::AllGather, layout, 400.0);
  ASSERT_EQ(steps.size(), 1u);
  ASSERT_EQ(steps[0].transfers.size(), 4u);
  for (int i = 0; i < 4; ++i) {
    EXPECT_EQ(steps[0].transfers[i].src, i);
    EXPECT_EQ(steps[0].transfers[i].dst, (i + 1) % 4);
    EXPECT_DOUBLE_EQ(steps[0].transfers[i].bytes, 300.0);
  }
  layout.point_to_point = false;
  const auto nccl = collectives::ring_steps_plan(Kind::AllGather, layout, 400.0);
  ASSERT_EQ(nccl[0].transfers.size(), 8u);  // two channels of four hops, half the edge each
  EXPECT_DOUBLE_EQ(nccl[0].transfers[0].bytes, 150.0);
}
