// Flow aggregation (collectives/aggregate.hpp): a direct plan re-paired into about one flow per member and
// class, with every member's bytes out and in kept; other plans untouched.
#include <gtest/gtest.h>

#include <map>

#include "llmsim/collectives/aggregate.hpp"

using namespace llmsim::collectives;

namespace {

GroupLayout two_nodes_of_four() {
  GroupLayout l;
  l.node_of_member = {0, 0, 0, 0, 1, 1, 1, 1};
  return l;
}

/// Bytes out of and into each member, inside nodes (key 0) and across (key 1).
std::map<std::pair<int, int>, std::pair<double, double>> port_bytes(const Step& step, const GroupLayout& l) {
  std::map<std::pair<int, int>, std::pair<double, double>> ports;
  for (const auto& t : step.transfers) {
    const int across = l.node_of_member[t.src] != l.node_of_member[t.dst];
    ports[{t.src, across}].first += t.bytes;
    ports[{t.dst, across}].second += t.bytes;
  }
  return ports;
}

}  // namespace

TEST(AggregateFlows, UniformAllToAllBecomesShiftedFlows) {
  // 8 ranks, 800 bytes each: 100 per pair. Inside a node each rank sends 3 x 100 to its next local rank; across,
  // 4 x 100 to the rank with its local index on the other node: 8 + 8 flows instead of 56.
  const auto l = two_nodes_of_four();
  const auto plan = aggregate_flows(make_plan(Kind::AllToAll, Algorithm::Direct, l, 800.0), l);
  ASSERT_EQ(plan.steps.size(), 1u);
  const auto& t = plan.steps[0].transfers;
  ASSERT_EQ(t.size(), 16u);
  for (const auto& f : t) {
    const bool across = l.node_of_member[f.src] != l.node_of_member[f.dst];
    EXPECT_DOUBLE_EQ(f.bytes, across ? 400.0 : 300.0);
    EXPECT_EQ(f.dst, across ? (f.src + 4) % 8 : f.src / 4 * 4 + (f.src % 4 + 1) % 4);
  }
}

TEST(AggregateFlows, SkewedExchangeKeepsEveryPortsBytes) {
  // All-to-all-v where member i sends (1 + i) x 10 bytes to every peer and member 5 receives twice as much.
  const auto l = two_nodes_of_four();
  std::vector<double> m(64, 0);
  for (int i = 0; i < 8; ++i)
    for (int j = 0; j < 8; ++j)
      if (i != j) m[i * 8 + j] = (1 + i) * 10.0 * (j == 5 ? 2 : 1);
  const auto direct = make_plan(Kind::AllToAllV, Algorithm::Direct, l, 0, m);
  const auto plan = aggregate_flows(direct, l);
  EXPECT_LT(plan.steps[0].transfers.size(), 2u * 8 * 2);
  const auto before = port_bytes(direct.steps[0], l), after = port_bytes(plan.steps[0], l);
  ASSERT_EQ(before.size(), after.size());
  for (const auto& [port, bytes] : before) {
    EXPECT_NEAR(after.at(port).first, bytes.first, 1e-9) << port.first << (port.second ? " across" : " inside");
    EXPECT_NEAR(after.at(port).second, bytes.second, 1e-9) << port.first << (port.second ? " across" : " inside");
  }
  for (const auto& f : plan.steps[0].transfers) EXPECT_NE(f.src, f.dst);
}

TEST(AggregateFlows, OnlyDirectPlansAreRepaired) {
  const auto l = two_nodes_of_four();
  const auto ring = make_plan(Kind::AllReduce, Algorithm::Ring, l, 800.0);
  const auto same = aggregate_flows(ring, l);
  ASSERT_EQ(same.steps.size(), ring.steps.size());
  EXPECT_EQ(same.steps[0].transfers.size(), ring.steps[0].transfers.size());
}
