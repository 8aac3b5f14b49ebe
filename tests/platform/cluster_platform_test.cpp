// Routes of the leaf/spine cluster platform: hop counts, bottleneck bandwidths and latencies.
#include <gtest/gtest.h>
#include <simgrid/s4u.hpp>

#include <algorithm>

#include "../support/scenarios.hpp"
#include "llmsim/platform/cluster_platform.hpp"
#include "llmsim/platform/fat_tree.hpp"

using namespace llmsim;
namespace sg4 = simgrid::s4u;

namespace {
struct Route {
  size_t hops;
  double bandwidth;  // bottleneck [bytes/s]
  double latency;    // [s]
};
Route route(sg4::Host* a, sg4::Host* b) {
  std::vector<sg4::Link*> links;
  double latency = 0;
  a->route_to(b, links, &latency);
  double bw = 1e300;
  for (auto* l : links) bw = std::min(bw, l->get_bandwidth());
  return {links.size(), bw, latency};
}
}  // namespace

TEST(ClusterPlatform, HopsBandwidthAndLatencyOfEachRouteKind) {
  // 48 nodes of 8 GPUs, radix-40 leaves, rail-optimised: leaf groups of 20 nodes (20 down-ports per leaf).
  const auto s = test::shipped("scenarios/default.json", {"cluster.nodes=48", "training.global_batch=384"});
  int argc = 1;
  char name[] = "test";
  char* argv[] = {name, nullptr};
  sg4::Engine e(&argc, argv);
  const auto p = platform::build_platform(s, 1);
  ASSERT_EQ(p.hosts.size(), 48u * 8);
  EXPECT_EQ(platform::nodes_per_leaf_group(s.cluster, platform::fat_tree_params(s.cluster)), 20);
  const auto& c = s.cluster;
  const double switch_latency = platform::fat_tree_params(c).switch_latency;
  const double eff_nic = c.nic_bandwidth * s.hardware.calibration.network_efficiency;
  const double eff_nvl = s.hardware.nvlink_bandwidth * s.hardware.calibration.nvlink_efficiency;

  const Route intra = route(p.host(0, 0), p.host(0, 5));  // NVLink out, NVLink in
  EXPECT_EQ(intra.hops, 2u);
  EXPECT_DOUBLE_EQ(intra.bandwidth, eff_nvl);
  EXPECT_DOUBLE_EQ(intra.latency, s.hardware.nvlink_latency);

  const Route leaf = route(p.host(0, 3), p.host(19, 3));  // NIC, the other node's leaf port in, NIC
  EXPECT_EQ(leaf.hops, 3u);
  EXPECT_DOUBLE_EQ(leaf.bandwidth, eff_nic);
  EXPECT_DOUBLE_EQ(leaf.latency, 2 * c.nic_latency + switch_latency);

  // NIC, leaf port out, uplink up, uplink down, the other node's leaf port in, NIC
  const Route spine = route(p.host(0, 3), p.host(45, 3));
  EXPECT_EQ(spine.hops, 6u);
  EXPECT_DOUBLE_EQ(spine.bandwidth, eff_nic);
  EXPECT_DOUBLE_EQ(spine.latency, 2 * c.nic_latency + 3 * switch_latency);  // leaf, spine, leaf
}

TEST(ClusterPlatform, OversubscribedUplinkAndSharedNics) {
  // Radix 48 at oversubscription 2: 32 down-ports per leaf; without rails 8 NICs per node -> 4 nodes per leaf.
  const auto s = test::shipped("scenarios/default.json", {"cluster.nodes=8", "cluster.topology.oversubscription=2",
                                                          "cluster.topology.leaf_radix=48", "cluster.topology.rail_optimized=false",
                                                          "cluster.nics_per_node=4"});
  EXPECT_EQ(platform::nodes_per_leaf_group(s.cluster, platform::fat_tree_params(s.cluster)), 8);  // 32 down-ports / 4 NICs
  int argc = 1;
  char name[] = "test";
  char* argv[] = {name, nullptr};
  sg4::Engine e(&argc, argv);
  const auto p = platform::build_platform(s, 2);  // hosts = pairs of GPUs
  ASSERT_EQ(p.hosts.size(), 8u * 4);
  EXPECT_EQ(p.host(3, 5), p.host(3, 4));
  // Lanes of 2 GPUs over 4 NICs of 8 GPUs: one NIC per lane.
  const Route r = route(p.host(0, 0), p.host(7, 0));
  EXPECT_DOUBLE_EQ(r.bandwidth, s.cluster.nic_bandwidth * s.hardware.calibration.network_efficiency);
  const Route nvl = route(p.host(0, 0), p.host(0, 2));
  EXPECT_DOUBLE_EQ(nvl.bandwidth, 2 * s.hardware.nvlink_bandwidth * s.hardware.calibration.nvlink_efficiency);
}
