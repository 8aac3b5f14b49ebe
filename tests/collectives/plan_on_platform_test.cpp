// Collective plans run on the SimGrid platform against their alpha-beta formulas on uncongested links, flow
// sharing, and an oversubscribed spine. One simulation per test (process).
#include <gtest/gtest.h>

#include <cmath>

#include "../support/network.hpp"
#include "../support/scenarios.hpp"
#include "llmsim/collectives/alpha_beta.hpp"
#include "llmsim/engine/plan_runner.hpp"
#include "llmsim/engine/simulation.hpp"

using namespace llmsim;
using test::leaf_alpha;
using test::nic;
using collectives::Algorithm;
using collectives::Kind;
namespace sg4 = simgrid::s4u;

namespace {
/// Runs one collective over GPU `local` of each of the first `nodes` nodes (or over `ranks` GPUs in rank order
/// when ranks > 0) and returns its simulated time.
double run_collective(const scenario::Scenario& s, Kind kind, Algorithm a, double bytes, int nodes, int ranks = 0,
                      int window = 0, double overhead = 0, const std::vector<double>& matrix = {}) {
  engine::Simulation sim(s, 1);
  const auto& p = sim.platform();
  collectives::GroupLayout layout;
  layout.window = window;
  std::vector<sg4::Host*> endpoints;
  const int n = ranks > 0 ? ranks : nodes;
  const int g = s.cluster.gpus_per_node;
  for (int r = 0; r < n; ++r) {
    const int node = ranks > 0 ? r / g : r, local = ranks > 0 ? r % g : 0;
    layout.node_of_member.push_back(node);
    endpoints.push_back(p.host(node, local));
  }
  const auto plan = collectives::make_plan(kind, a, layout, bytes, matrix);
  double elapsed = -1;
  sg4::Actor::create("driver", endpoints[0], [&]() {
    engine::run_plan(plan, endpoints, 1, true, overhead);
    elapsed = sg4::Engine::get_clock();
  });
  sim.run();
  return elapsed;
}

scenario::Scenario cluster_of(int nodes, std::vector<std::string> extra = {}) {
  extra.insert(extra.begin(), {"cluster.nodes=" + std::to_string(nodes), "parallelism.tp=1", "parallelism.pp=1",
                               "training.global_batch=" + std::to_string(8 * nodes)});
  return test::shipped("scenarios/default.json", extra);
}

}  // namespace

TEST(PlanOnPlatform, DoubleBinaryTreeAllReduce) {
  const auto s = cluster_of(8);
  const double S = 128e6;
  // Each rank receives S/2 from each of its two children in one tree: 2 S/B + 2 floor(log2 8) alpha.
  EXPECT_NEAR(run_collective(s, Kind::AllReduce, Algorithm::Tree, S, 8), 2 * S / nic(s) + 2 * 3 * leaf_alpha(s), 1e-9);
}

TEST(PlanOnPlatform, HalvingDoublingAllReduce) {
  const auto s = cluster_of(8);
  const double S = 128e6;
  EXPECT_NEAR(run_collective(s, Kind::AllReduce, Algorithm::HalvingDoubling, S, 8),
              2 * 7.0 / 8 * S / nic(s) + 2 * 3 * leaf_alpha(s), 1e-9);
}

TEST(PlanOnPlatform, MessageOverheadIsPaidOncePerStep) {
  const auto s = cluster_of(8);
  const double S = 128e6;
  // Halving-doubling on 8 ranks has 2 log2(8) = 6 steps.
  EXPECT_NEAR(run_collective(s, Kind::AllReduce, Algorithm::HalvingDoubling, S, 8, 0, 0, 5e-6),
              2 * 7.0 / 8 * S / nic(s) + 2 * 3 * leaf_alpha(s) + 6 * 5e-6, 1e-9);
}

TEST(PlanOnPlatform, DirectAllReduceAllPeersAtOnce) {
  const auto s = cluster_of(4);
  const double S = 64e6;
  EXPECT_NEAR(run_collective(s, Kind::AllReduce, Algorithm::Direct, S, 4), 2 * 3.0 / 4 * S / nic(s) + 2 * leaf_alpha(s),
              1e-9);
}

TEST(PlanOnPlatform, WindowedDirectAllToAll) {
  const auto s = cluster_of(4);
  const double S = 64e6;
  // One peer at a time: 3 rounds of S/4 each.
  EXPECT_NEAR(run_collective(s, Kind::AllToAll, Algorithm::Direct, S, 4, 0, 1), 3.0 / 4 * S / nic(s) + 3 * leaf_alpha(s),
              1e-9);
}

TEST(PlanOnPlatform, AllToAllVIsSetByTheMostLoadedLink) {
  // Three nodes send S units: 0->1 4S, 0->2 S, 1->0 2S, 2->0 S, 2->1 S. Per link: node 0 up 5S, node 1 down
  // 5S, node 0 down 3S, node 1 up 2S, node 2 up 2S, node 2 down S. Max-min sharing: every flow starts at B/2;
  // the three S flows end at 2S/B, 1->0 at 3S/B, 0->1 at 5S/B = the busiest link's bytes over its bandwidth.
  const auto s = cluster_of(3);
  const double S = 16e6;
  const std::vector<double> m = {0, 4 * S, S, 2 * S, 0, 0, S, S, 0};
  EXPECT_NEAR(run_collective(s, Kind::AllToAllV, Algorithm::Direct, 0, 3, 0, 0, 0, m), 5 * S / nic(s) + leaf_alpha(s), 1e-9);
}

TEST(PlanOnPlatform, RingBroadcastIsAPipelinedChain) {
  const auto s = cluster_of(4);
  const double S = 64e6;
  EXPECT_NEAR(run_collective(s, Kind::Broadcast, Algorithm::Ring, S, 4), S / nic(s) + 3 * leaf_alpha(s), 1e-9);
}

TEST(PlanOnPlatform, AlphaBetaTimeOfHalvingDoublingAllGatherMatches) {
  const auto s = cluster_of(8);
  const double S = 32e6;
  EXPECT_NEAR(run_collective(s, Kind::AllGather, Algorithm::HalvingDoubling, S, 8),
              collectives::alpha_beta_time(Kind::AllGather, Algorithm::HalvingDoubling, 8, S, nic(s), leaf_alpha(s)), 1e-9);
}

TEST(FlowSharing, TwoFlowsOnOneLinkEachGetHalfTheBandwidth) {
  const auto s = cluster_of(3);
  engine::Simulation sim(s, 1);
  const auto& p = sim.platform();
  const double S = 100e6;
  double t1 = 0, t2 = 0;
  sg4::Actor::create("a", p.host(0, 0), [&]() {
    // Both leave through GPU 0's NIC of node 0: each gets B/2 while both run.
    auto c1 = sg4::Comm::sendto_async(p.host(0, 0), p.host(1, 0), static_cast<uint64_t>(S));
    auto c2 = sg4::Comm::sendto_async(p.host(0, 0), p.host(2, 0), static_cast<uint64_t>(S));
    c1->wait();
    t1 = sg4::Engine::get_clock();
    c2->wait();
    t2 = sg4::Engine::get_clock();
  });
  sim.run();
  EXPECT_NEAR(t1, 2 * S / nic(s) + leaf_alpha(s), 1e-9);
  EXPECT_NEAR(t2, t1, 1e-9);
}

namespace {
/// Ring all-reduce of 16 ranks on 2 nodes, each node alone under its leaf (radix 2), zero latencies: 8 channels
/// each cross the spine; the uplink carries 8 NICs' worth of flows at 1/o of their bandwidth.
double cross_leaf_allreduce(double oversubscription) {
  const auto s = cluster_of(2, {"cluster.topology.leaf_radix=2", "cluster.topology.oversubscription=" + std::to_string(oversubscription),
                                "cluster.nic_latency_us=0", "cluster.topology.switch_latency_us=0", "hardware.nvlink_latency_us=0"});
  return run_collective(s, Kind::AllReduce, Algorithm::Ring, 1e9, 2, 16);
}
double expected_cross_leaf(double o) {
  const auto s = cluster_of(2);
  return 2 * 15.0 / 16 * (1e9 / 8) / (nic(s) / o);  // per-channel edge bytes at the uplink share B/o
}
}  // namespace

TEST(Oversubscription, NonBlockingSpineRunsAtNicSpeed) { EXPECT_NEAR(cross_leaf_allreduce(1), expected_cross_leaf(1), 1e-9); }

TEST(Oversubscription, SpineOversubscribedTwiceTakesTwiceAsLong) {
  EXPECT_NEAR(cross_leaf_allreduce(2), expected_cross_leaf(2), 1e-9);
  EXPECT_NEAR(expected_cross_leaf(2) / expected_cross_leaf(1), 2.0, 1e-12);
}
