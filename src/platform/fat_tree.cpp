#include "llmsim/platform/fat_tree.hpp"

#include <simgrid/s4u.hpp>

#include <algorithm>
#include <cmath>

#include "llmsim/platform/node.hpp"
#include "llmsim/platform/topology.hpp"

namespace sg4 = simgrid::s4u;

namespace llmsim::platform {

FatTreeParams fat_tree_params(const scenario::Cluster& c) {
  const auto& p = c.topology.params;
  return {p.flag("rail_optimized"), p.integer("leaf_radix"), p.number("oversubscription"), p.seconds("switch_latency_us")};
}

int nodes_per_leaf_group(const scenario::Cluster& c, const FatTreeParams& p) {
  const double o = p.oversubscription;
  const int down_ports = std::max(1, static_cast<int>(std::floor(p.leaf_radix * o / (1 + o))));
  return p.rail_optimized ? down_ports : std::max(1, down_ports / c.nics_per_node);
}

namespace {

struct Zone {
  sg4::NetZone* zone;
  NetPoint* gateway;
};

/// A node's ports into the non-blocking leaf: `in` carries a leaf traversal's latency into the node, `out` the
/// way out of the group (its latency is on the uplinks).
struct Ports {
  sg4::Link* in;
  sg4::Link* out;
};

/// A link that never limits (1e15 bytes/s), only for its latency.
sg4::Link* port(sg4::NetZone* zone, const std::string& name, double latency) {
  return zone->create_link(name, 1e15)->set_latency(latency)->seal();
}

/// Routes of a leaf group: node a to node b through b's in-port only, a node to the group's uplinks (`up`)
/// through its out-port, back through its in-port. Each flow meets one port of the leaf (none can limit it), so
/// flows between different pairs of nodes share no link there and stay separate max-min systems for SimGrid,
/// which re-solves a whole connected system at each flow's start and end (docs/performance.md). Routes keep
/// the latency of NIC, leaf(, spine, leaf), NIC.
void connect_leaf(sg4::NetZone* gz, const std::vector<Zone>& nodes, const std::vector<Ports>& ports, const Zone& up) {
  using Dir = sg4::LinkInRoute::Direction;
  for (size_t a = 0; a < nodes.size(); ++a) {
    for (size_t b = 0; b < nodes.size(); ++b)
      if (a != b)
        gz->add_route(nodes[a].zone->get_netpoint(), nodes[b].zone->get_netpoint(), nodes[a].gateway, nodes[b].gateway,
                      {{ports[b].in, Dir::NONE}}, false);
    gz->add_route(nodes[a].zone->get_netpoint(), up.zone->get_netpoint(), nodes[a].gateway, up.gateway,
                  {{ports[a].out, Dir::NONE}}, false);
    gz->add_route(up.zone->get_netpoint(), nodes[a].zone->get_netpoint(), up.gateway, nodes[a].gateway,
                  {{ports[a].in, Dir::NONE}}, false);
  }
}

class FatTree final : public Topology {
 public:
  ClusterPlatform build(const scenario::Cluster& c, const scenario::Hardware& hw, int lane_width,
                        const std::vector<bool>& used_nodes) const override {
    const auto p = fat_tree_params(c);
    ClusterPlatform out = empty_platform(c, lane_width);
    const int per_group = nodes_per_leaf_group(c, p);
    const int groups = (c.nodes + per_group - 1) / per_group;
    using Dir = sg4::LinkInRoute::Direction;
    auto* root = sg4::create_full_zone("cluster");
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
      const int first = gi * per_group, last = std::min(c.nodes, first + per_group);
      std::vector<Zone> nodes;
      std::vector<Ports> ports;
      for (int n = first; n < last; ++n) {
        if (!used_nodes.empty() && !used_nodes[n]) {  // its zone, links and routes would cost O(nodes) each
          leave_out_node(c, out);
          continue;
        }
        const std::string node = "node" + std::to_string(n);
        auto* nz = sg4::create_full_zone(node);
        nz->set_parent(gz);
        auto* node_gw = nz->create_router(node + "-gw");
        add_node(nz, n, c, hw, node_gw, out);
        nz->seal();
        nodes.push_back({nz, node_gw});
        ports.push_back({port(gz, node + "-leaf-in", p.switch_latency), port(gz, node + "-leaf-out", 0)});
      }
      connect_leaf(gz, nodes, ports, {switch_zone, gw});
      gz->seal();
      const double down_bw = (last - first) * c.nics_per_node * c.nic_bandwidth * hw.calibration.network_efficiency;
      // Half of each leaf and of the spine traversal: a cross-group route crosses two uplinks.
      uplinks.push_back(duplex_link(root, prefix + "-uplink", down_bw / p.oversubscription, p.switch_latency));
      group_zones.push_back({gz, gw});
    }
    for (int a = 0; a < groups; ++a)
      for (int b = a + 1; b < groups; ++b)
        root->add_route(group_zones[a].zone->get_netpoint(), group_zones[b].zone->get_netpoint(), group_zones[a].gateway,
                        group_zones[b].gateway, {{uplinks[a], Dir::UP}, {uplinks[b], Dir::DOWN}}, true);
    root->seal();
    return out;
  }

  double bisection_bandwidth(const scenario::Cluster& c, const scenario::Hardware& hw) const override {
    const auto p = fat_tree_params(c);
    const double half = c.nodes / 2.0 * c.nics_per_node * c.nic_bandwidth * hw.calibration.network_efficiency;
    return nodes_per_leaf_group(c, p) >= c.nodes ? half : half / p.oversubscription;
  }
  int fold_unit_nodes(const scenario::Cluster& c) const override {
    const auto p = fat_tree_params(c);
    return p.oversubscription <= 1 ? nodes_per_leaf_group(c, p) : 0;
  }
};

const scenario::FieldList kParams = {
    scenario::Field::boolean("rail_optimized", "NIC i of every node in a leaf group goes to leaf switch i").with_default(true),
    scenario::Field::integer("leaf_radix", "ports per leaf switch (half face the nodes at oversubscription 1)").at_least(2).with_default(40),
    scenario::Field::number("oversubscription", "ratio", "leaf down:up bandwidth ratio").at_least(1).with_default(1.0),
    scenario::Field::number("switch_latency_us", "us", "one switch traversal").at_least(0).with_default(0.5),
};

LLMSIM_REGISTER(Topology, "fat-tree", "two-level leaf/spine fat-tree, rail-optimised or not, oversubscribed uplinks", kParams,
                [](const scenario::Params&, const scenario::Scenario&) { return std::make_unique<FatTree>(); });

}  // namespace
}  // namespace llmsim::platform
