// Routing models, expert placements and C_T (mean distinct destination devices per token) against closed forms:
// with one expert per device C_T is exactly k; with E/D experts per device and independent uniform routing it is
// the hypergeometric expectation D * (1 - C(E - E/D, k) / C(E, k)); with perfectly grouped co-activation and
// Mozart's clusters it is 1.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <set>

#include "../support/scenarios.hpp"
#include "llmsim/moe/routing.hpp"
#include "llmsim/moe/traffic.hpp"
#include "llmsim/strategy/expert_placement.hpp"

using namespace llmsim;

namespace {
/// default.json with a MoE model of `experts` experts, top-k, on `devices` expert-parallel ranks.
scenario::Scenario moe_scenario(int experts, int k, int devices, std::vector<std::string> extra = {}) {
  extra.insert(extra.begin(), {"model=olmoe-1b-7b", "model.moe.experts=" + std::to_string(experts),
                               "model.moe.top_k=" + std::to_string(k), "cluster.nodes=" + std::to_string(std::max(1, devices / 8)),
                               "parallelism.tp=1", "parallelism.pp=1", "parallelism.ep=" + std::to_string(devices),
                               "training.global_batch=" + std::to_string(8 * std::max(1, devices / 8)),
                               "strategies.pipeline_schedule=1f1b"});
  if (devices < 8) extra.push_back("cluster.gpus_per_node=" + std::to_string(devices));
  return test::shipped("scenarios/default.json", extra);
}

/// Routes `tokens` tokens of each of the D ranks for MoE layer 0 and places with the scenario's strategy.
moe::LayerTraffic traffic(const scenario::Scenario& s, int tokens, const moe::CopyRule& copies = {}) {
  const auto routing = moe::make_routing(s);
  std::vector<moe::RoutingSample> sim, profile;
  for (int r = 0; r < s.parallelism.ep; ++r) {
    auto a = moe::routing_rng(s.seed, 0, r, 0), b = moe::routing_rng(s.seed, 0, r, 2);
    sim.push_back(routing->route(0, tokens, a));
    profile.push_back(routing->route(0, tokens, b));
  }
  const auto placement = strategy::make_expert_placement(s)->place(moe::stats_of(profile, s.model.moe.experts), s.parallelism.ep);
  return moe::route_layer(sim, placement, s.model.moe.experts, copies, s.model.moe.capacity_factor, 1.0);
}

double hypergeometric_c_t(int E, int D, int k) {
  double none = 1;  // probability that a device holds none of the token's k experts
  for (int i = 0; i < k; ++i) none *= double(E - E / D - i) / (E - i);
  return D * (1 - none);
}
}  // namespace

TEST(Routing, TokensPickKDistinctExpertsDeterministically) {
  const auto s = moe_scenario(64, 8, 8, {"routing={\"name\": \"zipf\", \"skew\": 1.2}"});
  const auto routing = moe::make_routing(s);
  auto a = moe::routing_rng(s.seed, 3, 1, 0), b = moe::routing_rng(s.seed, 3, 1, 0), c = moe::routing_rng(s.seed, 4, 1, 0);
  const auto r1 = routing->route(3, 500, a), r2 = routing->route(3, 500, b), r3 = routing->route(4, 500, c);
  EXPECT_EQ(r1.experts, r2.experts);
  EXPECT_NE(r1.experts, r3.experts);
  for (int t = 0; t < r1.tokens; ++t) {
    std::set<int> chosen(r1.experts.begin() + t * 8, r1.experts.begin() + t * 8 + 8);
    EXPECT_EQ(chosen.size(), 8u);
    EXPECT_GE(*chosen.begin(), 0);
    EXPECT_LT(*chosen.rbegin(), 64);
  }
}

TEST(Routing, ZipfMakesTheHottestExpertAboutAsHotAsItsRankSays) {
  // skew 1, 64 experts, top-1: the hottest expert takes 1/H_64 of the tokens (H_64 = 4.744).
  const auto s = moe_scenario(64, 1, 8, {"routing={\"name\": \"zipf\", \"skew\": 1.0}"});
  const auto tr = traffic(s, 4000);
  const double hottest = *std::max_element(tr.expert_load.begin(), tr.expert_load.end()) / tr.tokens;
  double h64 = 0;
  for (int r = 1; r <= 64; ++r) h64 += 1.0 / r;
  EXPECT_NEAR(hottest, 1 / h64, 0.01);
}

// Weights {1e6, 1, 1}: the first pick is expert 0 (probability 1 - 2e-6); the second repeats it about every draw, so
// the direct draw from the rest takes over, and must give experts 1 and 2 one half each, as rejecting repeats would
// (20,000 draws: 3 sigma = 0.0106). A Zipf skew of 4 with top-8 of 128 experts used to reject for minutes.
TEST(Routing, DrawingPastManyRepeatsKeepsTheWeightsOfTheRest) {
  const std::vector<double> cumulative = moe::cumulative_of({1e6, 1, 1});
  std::mt19937_64 rng(7);
  int ones = 0;
  const int draws = 20000;
  for (int i = 0; i < draws; ++i) {
    std::vector<int> out;
    moe::draw_distinct(cumulative, 2, rng, out);
    ASSERT_EQ(out.size(), 2u);
    ASSERT_NE(out[0], out[1]);
    ones += (out[0] == 1 || out[1] == 1) && (out[0] != 2 && out[1] != 2);
  }
  EXPECT_NEAR(double(ones) / draws, 0.5, 0.0106);
  std::vector<int> all;
  moe::draw_distinct(cumulative, 3, rng, all);
  EXPECT_EQ(std::set<int>(all.begin(), all.end()), (std::set<int>{0, 1, 2}));
}

TEST(CT, RoundRobinWithOneExpertPerDeviceIsK) {
  const auto s = moe_scenario(8, 2, 8, {"strategies.expert_placement=round-robin"});
  EXPECT_DOUBLE_EQ(traffic(s, 1000).c_t(), 2.0);
}

TEST(CT, UniformRoutingMatchesTheHypergeometricExpectation) {
  // 64 experts on 16 devices, top-8: 16 * (1 - C(60,8)/C(64,8)) = 6.75.
  const auto s = moe_scenario(64, 8, 16, {"strategies.expert_placement=round-robin"});
  EXPECT_NEAR(traffic(s, 1024).c_t(), hypergeometric_c_t(64, 16, 8), 0.03);
}

TEST(CT, MozartPutsPerfectlyCoActivatedGroupsOnOneDevice) {
  // 8 groups of 8 experts, no co-activation across groups: a token's next expert leaves its group only through the
  // model's floor eps = 1e-3 per expert (docs/moe.md): 56 eps against 7, then 12, then 15 inside, so
  // 0.79% + 0.46% + 0.37% = 1.62% of the tokens (1.0162 by a 400,000-token draw of the same rule). Mozart's
  // clusters of 8 recover the groups, so one copy per token serves every expert of its group: C_T = 1.0162, and
  // 1024 tokens sample it to within 3 standard deviations, 0.012.
  const auto s = moe_scenario(64, 4, 8, {"routing={\"name\": \"coactivation\", \"groups\": 8, \"cross\": 0}",
                                         "strategies.expert_placement={\"name\": \"mozart\", \"cluster_size\": 8}"});
  EXPECT_NEAR(traffic(s, 1024).c_t(), 1.0162, 0.012);
}

TEST(CT, MozartsAutoClusterSizeDividesAnOddExpertCount) {
  // 80 experts on 16 devices: 5 per device. Half of it (2) did not divide 5 and the placement crashed (double free);
  // auto takes the largest divisor up to half, here 1, so every device holds its 5 experts. Under uniform routing
  // any such placement gives the hypergeometric C_T: 16 * (1 - C(75,4)/C(80,4)) = 3.70.
  const auto s = moe_scenario(80, 4, 16, {"strategies.expert_placement=mozart"});
  EXPECT_NEAR(traffic(s, 1024).c_t(), hypergeometric_c_t(80, 16, 4), 0.03);
}

TEST(CT, MozartLowersCTUnderCoActivationAgainstContiguous) {
  // The documented co-activation model of the Mozart scenarios (groups of 8 experts, cross 0.1) on an
  // OLMoE-shaped layer (64 experts, top-8, 16 devices): clusters of 4 = one device each.
  const std::vector<std::string> routing = {"routing={\"name\": \"coactivation\", \"groups\": 8, \"cross\": 0.1}"};
  auto with = [&](const std::string& placement) {
    auto extra = routing;
    extra.push_back("strategies.expert_placement=" + placement);
    return traffic(moe_scenario(64, 8, 16, extra), 1024).c_t();
  };
  EXPECT_LT(with("{\"name\": \"mozart\", \"cluster_size\": 4}"), 0.9 * with("contiguous"));
}

TEST(CT, PerDeviceCopiesSendOneCopyPerDestination) {
  const auto s = moe_scenario(64, 8, 8);
  const auto per_expert = traffic(s, 500), per_device = traffic(s, 500, moe::CopyRule::named("per-device"));
  double e = 0, d = 0;
  for (double x : per_expert.copies) e += x;
  for (double x : per_device.copies) d += x;
  EXPECT_DOUBLE_EQ(e, 8.0 * 500 * 8);          // k copies per token
  EXPECT_DOUBLE_EQ(d, per_device.destinations);  // one per distinct destination
}

TEST(CT, PerNodeCopiesCrossTheNetworkOncePerNodeThroughTheRelay) {
  // 4 devices on 2 nodes, expert e on device e. Device 0 sends a token to experts {2, 3} and one to {1, 2};
  // device 1 a token to {2, 3}. By hand (DeepSeek-V3 Sec. 3.2.2): device 0's relay in node 1 is device 2 (same
  // in-node position 0), device 1's is device 3.
  strategy::ExpertPlacement placement{4, {{0}, {1}, {2}, {3}}};
  const std::vector<moe::RoutingSample> sources = {{2, 2, {2, 3, 1, 2}}, {1, 2, {2, 3}}};
  auto copies = [&](const std::string& rule) {
    return moe::route_layer(sources, placement, 4, moe::CopyRule::named(rule, {0, 0, 1, 1}), 0, 1.0).copies;
  };
  auto at = [](const std::vector<double>& c, int a, int b) { return c[a * 4 + b]; };
  const auto node = copies("per-node"), expert = copies("per-expert");
  EXPECT_EQ(at(node, 0, 2), 2);  // both of device 0's tokens cross once, to the relay
  EXPECT_EQ(at(node, 0, 3), 0);
  EXPECT_EQ(at(node, 2, 3), 1);  // the relay forwards the first token to expert 3
  EXPECT_EQ(at(node, 0, 1), 1);  // inside the node: directly
  EXPECT_EQ(at(node, 1, 3), 1);  // device 1's token crosses to its relay, device 3,
  EXPECT_EQ(at(node, 3, 2), 1);  // which forwards it to expert 2
  EXPECT_EQ(at(node, 1, 2), 0);
  // Network copies (node 0 -> node 1): 5 per expert, 3 per node.
  EXPECT_EQ(at(expert, 0, 2) + at(expert, 0, 3) + at(expert, 1, 2) + at(expert, 1, 3), 5);
  EXPECT_EQ(at(node, 0, 2) + at(node, 0, 3) + at(node, 1, 2) + at(node, 1, 3), 3);
  EXPECT_THROW(moe::CopyRule::named("per-rack"), std::invalid_argument);
}

TEST(Placement, LoadBalancedBeatsContiguousUnderSkew) {
  const std::vector<std::string> zipf = {"routing={\"name\": \"zipf\", \"skew\": 1.2}"};
  auto imbalance = [&](const std::string& placement) {
    auto extra = zipf;
    extra.push_back("strategies.expert_placement=" + placement);
    return traffic(moe_scenario(64, 8, 8, extra), 1024).imbalance();
  };
  EXPECT_LT(imbalance("load-balanced"), imbalance("contiguous"));
  // Zipf 1.2 over 64 experts, 8 distinct per token: the hottest expert is in 96% of the tokens, the next ones in
  // 80%, 63%, 51% ... (a 100,000-token draw of the same rule); greedy on the frequencies, 8 experts per device,
  // leaves the device of the hottest at 1.145x the mean load. 1024 tokens sample a device's load to about 3%.
  EXPECT_NEAR(imbalance("load-balanced"), 1.145, 0.06);
}

TEST(Placement, ReplicateHotReplicatesByLoadPerReplica) {
  // 8 experts on 4 devices (2 each + 1 extra slot = 4 extra replicas), frequencies 100, 1 x 6, 50. Extra
  // replicas go to the highest frequency/replicas: e0 (100) -> 2, e0 (50, tie with e7, first wins) -> 3,
  // e7 (50) -> 2, e0 (33.3) -> 4: e0 on every device, e7 on two; every device uses its 3 slots.
  strategy::ExpertStats st;
  st.experts = 8;
  st.frequency = {100, 1, 1, 1, 1, 1, 1, 50};
  st.coactivation.assign(64, 0);
  const auto s = moe_scenario(8, 2, 4, {"strategies.expert_placement={\"name\": \"replicate-hot\", \"extra_slots\": 1}"});
  const auto p = strategy::make_expert_placement(s)->place(st, 4);
  EXPECT_EQ(p.hosts[0].size(), 4u);
  EXPECT_EQ(p.hosts[7].size(), 2u);
  for (int d = 0; d < 4; ++d) EXPECT_EQ(p.experts_on(d).size(), 3u) << "device " << d;
}

TEST(Placement, ReplicateHotBalancesBetterThanLoadBalancedUnderSkew) {
  auto imbalance = [&](const std::string& placement) {
    return traffic(moe_scenario(64, 8, 8, {"routing={\"name\": \"zipf\", \"skew\": 1.2}",
                                           "strategies.expert_placement=" + placement}), 1024).imbalance();
  };
  EXPECT_LT(imbalance("{\"name\": \"replicate-hot\", \"extra_slots\": 1}"), imbalance("load-balanced"));
}

TEST(Placement, CapacityDropsWhatAnExpertCannotTake) {
  // Top-1 onto 2 experts with capacity factor 1: each expert takes at most T/2 of the T tokens.
  const auto s = moe_scenario(8, 1, 8, {"model.moe.capacity_factor=1", "routing={\"name\": \"zipf\", \"skew\": 3}"});
  const auto tr = traffic(s, 1000);
  for (double load : tr.expert_load) EXPECT_LE(load, 8.0 * 1000 / 8 + 1e-9);
  EXPECT_GT(tr.dropped, 0);
  EXPECT_DOUBLE_EQ(tr.dropped + std::accumulate(tr.expert_load.begin(), tr.expert_load.end(), 0.0), 8.0 * 1000);
}

TEST(Routing, CoactivationFilesCountOnlyRatios) {
  // The same block structure once with entries near the largest double and once scaled to 1: identical draws
  // (the values are scaled to a largest entry of 1, so sums cannot overflow).
  auto draw = [](const std::string& file) {
    const auto s = moe_scenario(64, 8, 8, {"routing={\"name\": \"coactivation\", \"file\": \"../tests/moe/data/" + file + "\"}"});
    auto rng = moe::routing_rng(s.seed, 0, 0, 0);
    return moe::make_routing(s)->route(0, 300, rng).experts;
  };
  EXPECT_EQ(draw("huge-coactivation.json"), draw("unit-coactivation.json"));
}
