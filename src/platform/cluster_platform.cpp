#include "llmsim/platform/cluster_platform.hpp"

#include <simgrid/s4u.hpp>

#include <algorithm>
#include <cmath>

namespace sg4 = simgrid::s4u;

namespace llmsim::platform {

int nodes_per_leaf_group(const scenario::Cluster& c) {
  const double o = c.oversubscription;
  const int down_ports = std::max(1, static_cast<int>(std::floor(c.leaf_radix * o / (1 + o))));
  if (c.rail_optimized) return down_ports;
  return std::max(1, down_ports / c.nics_per_node);
}

namespace {

sg4::Link* duplex(sg4::NetZone* zone, const std::string& name, double bandwidth, double latency) {
  return zone->create_split_duplex_link(name, bandwidth)->set_latency(latency)->seal();
}

sg4::Link* fatpipe(sg4::NetZone* zone, const std::string& name, double latency) {
  return zone->create_link(name, 1e15)->set_latency(latency)->set_sharing_policy(sg4::Link::SharingPolicy::FATPIPE)->seal();
}

struct Zone {
  sg4::NetZone* zone;
  simgrid::kernel::routing::NetPoint* gateway;
};

/// One node: GPUs behind an NVSwitch, NICs to the node gateway router.
Zone build_node(sg4::NetZone* parent, int node, const scenario::Cluster& c, const scenario::Hardware& hw,
                ClusterPlatform& out) {
  const std::string prefix = "node" + std::to_string(node);
  auto* zone = sg4::create_full_zone(prefix);
  zone->set_parent(parent);
  auto* gateway = zone->create_router(prefix + "-gw");
  const int w = out.lane_width, lanes = c.gpus_per_node / w;
  const double nvl_bw = w * hw.nvlink_bandwidth * hw.calibration.nvlink_efficiency;
  // NICs: with lanes >= nics a NIC is shared by lanes/nics hosts; otherwise each host owns nics/lanes NICs.
  const int nic_links = std::min(lanes, c.nics_per_node);
  const double nic_bw = double(c.nics_per_node) / nic_links * c.nic_bandwidth * hw.calibration.network_efficiency;
  std::vector<sg4::Host*> hosts;
  std::vector<sg4::Link*> nvl, nic;
  for (int k = 0; k < nic_links; ++k)
    nic.push_back(duplex(zone, prefix + "-nic" + std::to_string(k), nic_bw, c.nic_latency));
  for (int g = 0; g < lanes; ++g) {
    auto* host = zone->create_host(prefix + "-gpu" + std::to_string(g * w), 1e12)->seal();
    hosts.push_back(host);
    out.hosts.push_back(host);
    nvl.push_back(duplex(zone, prefix + "-nvl" + std::to_string(g * w), nvl_bw, hw.nvlink_latency / 2));
  }
  // The NVSwitch as an endpoint for in-switch reduction: reached over each GPU's own NVLink link.
  auto* nvswitch = zone->create_host(prefix + "-nvswitch", 1e12)->seal();
  out.switches.push_back(nvswitch);
  using Dir = sg4::LinkInRoute::Direction;
  for (int g = 0; g < lanes; ++g) {
    // The switch port's reduction throughput bounds in-switch traffic below the NVLink rate.
    auto* port = duplex(zone, prefix + "-nvls" + std::to_string(g * w),
                        w * hw.nvlink_bandwidth * hw.calibration.in_switch_efficiency, 0.0);
    zone->add_route(hosts[g]->get_netpoint(), nvswitch->get_netpoint(), nullptr, nullptr,
                    {{nvl[g], Dir::UP}, {port, Dir::UP}}, true);
    for (int j = g + 1; j < lanes; ++j)
      zone->add_route(hosts[g]->get_netpoint(), hosts[j]->get_netpoint(), nullptr, nullptr,
                      {{nvl[g], Dir::UP}, {nvl[j], Dir::DOWN}}, true);
    zone->add_route(hosts[g]->get_netpoint(), gateway, nullptr, nullptr, {{nic[g * nic_links / lanes], Dir::UP}}, true);
  }
  zone->seal();
  return {zone, gateway};
}

}  // namespace

ClusterPlatform build_cluster_platform(const scenario::Cluster& c, const scenario::Hardware& hw, int lane_width) {
  ClusterPlatform out;
  out.lane_width = lane_width;
  out.nodes = c.nodes;
  out.gpus_per_node = c.gpus_per_node;
  out.nodes_per_group = nodes_per_leaf_group(c);
  const int groups = (c.nodes + out.nodes_per_group - 1) / out.nodes_per_group;
  using Dir = sg4::LinkInRoute::Direction;

  auto* root = sg4::create_full_zone("cluster");
  auto* spine = fatpipe(root, "spine", c.switch_latency);
  std::vector<Zone> group_zones;
  std::vector<sg4::Link*> uplinks;
  for (int gi = 0; gi < groups; ++gi) {
    const std::string prefix = "group" + std::to_string(gi);
    auto* gz = sg4::create_full_zone(prefix);
    gz->set_parent(root);
    // The group's gateway is a router in a child zone of its own: SimGrid routes from a node zone only to
    // another zone, never to a bare router of the parent.
    auto* switch_zone = sg4::create_full_zone(prefix + "-switch");
    switch_zone->set_parent(gz);
    auto* gw = switch_zone->create_router(prefix + "-gw");
    switch_zone->seal();
    auto* leaf = fatpipe(gz, prefix + "-leaf", c.switch_latency);
    const int first = gi * out.nodes_per_group, last = std::min(c.nodes, first + out.nodes_per_group);
    std::vector<Zone> nodes;
    for (int n = first; n < last; ++n) nodes.push_back(build_node(gz, n, c, hw, out));
    for (size_t a = 0; a < nodes.size(); ++a) {
      for (size_t b = a + 1; b < nodes.size(); ++b)
        gz->add_route(nodes[a].zone->get_netpoint(), nodes[b].zone->get_netpoint(), nodes[a].gateway, nodes[b].gateway,
                      {{leaf, Dir::NONE}}, true);
      gz->add_route(nodes[a].zone->get_netpoint(), switch_zone->get_netpoint(), nodes[a].gateway, gw,
                    {{leaf, Dir::NONE}}, true);
    }
    gz->seal();
    const double down_bw = (last - first) * c.nics_per_node * c.nic_bandwidth * hw.calibration.network_efficiency;
    uplinks.push_back(duplex(root, prefix + "-uplink", down_bw / c.oversubscription, 0.0));  // a cable: the
    // switch latencies are on the leaf and spine links
    group_zones.push_back({gz, gw});
  }
  for (int a = 0; a < groups; ++a)
    for (int b = a + 1; b < groups; ++b)
      root->add_route(group_zones[a].zone->get_netpoint(), group_zones[b].zone->get_netpoint(), group_zones[a].gateway,
                      group_zones[b].gateway,
                      {{uplinks[a], Dir::UP}, {spine, Dir::NONE}, {uplinks[b], Dir::DOWN}}, true);
  root->seal();
  return out;
}

}  // namespace llmsim::platform
