// `clos3`: three-tier Clos (the Arnold production topology): a leaf (ToR) per rack of `nodes_per_rack` nodes,
// a spine tier per minipod of `racks_per_minipod` racks, a non-blocking core between minipods. Each tier's
// uplinks are aggregated into one link: leaf up = rack NIC bandwidth / o_leaf, spine up = minipod leaf-uplink
// bandwidth / o_spine. Switch latency on every tier crossing. Bisection: N/2 * nics * B_nic * e_net, divided
// by o_leaf once the halves span racks and by o_leaf * o_spine once they span minipods.
#include <simgrid/s4u.hpp>

#include <algorithm>
#include <limits>

#include "llmsim/platform/node.hpp"
#include "llmsim/platform/topology.hpp"

namespace sg4 = simgrid::s4u;

namespace llmsim::platform {
namespace {

class Clos3 final : public Topology {
 public:
  Clos3(int per_rack, int per_minipod, double o_leaf, double o_spine, double lat)
      : per_rack_(per_rack), per_minipod_(per_minipod), o_leaf_(o_leaf), o_spine_(o_spine), lat_(lat) {}

  ClusterPlatform build(const scenario::Cluster& c, const scenario::Hardware& hw, int lane_width,
                        const std::vector<bool>&) const override {
    ClusterPlatform out = empty_platform(c, lane_width);
    auto* zone = graph_zone("clos3");
    const double node_bw = c.nics_per_node * c.nic_bandwidth * hw.calibration.network_efficiency;
    const int racks = (c.nodes + per_rack_ - 1) / per_rack_;
    const int minipods = (racks + per_minipod_ - 1) / per_minipod_;
    auto* core = zone->create_router("core");
    std::vector<NetPoint*> spines, leaves;
    std::vector<double> minipod_up(minipods, 0.0);
    for (int m = 0; m < minipods; ++m) spines.push_back(zone->create_router("minipod" + std::to_string(m) + "-spine"));
    for (int r = 0; r < racks; ++r) {
      leaves.push_back(zone->create_router("rack" + std::to_string(r) + "-leaf"));
      const int in_rack = std::min(c.nodes, (r + 1) * per_rack_) - r * per_rack_;
      const double up = in_rack * node_bw / o_leaf_;
      minipod_up[r / per_minipod_] += up;
      connect(zone, leaves[r], spines[r / per_minipod_], duplex_link(zone, "rack" + std::to_string(r) + "-up", up, lat_));
    }
    for (int m = 0; m < minipods; ++m)
      connect(zone, spines[m], core, duplex_link(zone, "minipod" + std::to_string(m) + "-up", minipod_up[m] / o_spine_, lat_));
    for (int n = 0; n < c.nodes; ++n) add_node(zone, n, c, hw, leaves[n / per_rack_], out);
    zone->seal();
    return out;
  }

  double bisection_bandwidth(const scenario::Cluster& c, const scenario::Hardware& hw) const override {
    const double half = c.nodes / 2.0 * c.nics_per_node * c.nic_bandwidth * hw.calibration.network_efficiency;
    const int racks = (c.nodes + per_rack_ - 1) / per_rack_;
    if (racks == 1) return half;
    return racks <= per_minipod_ ? half / o_leaf_ : half / (o_leaf_ * o_spine_);
  }
  /// A minipod when neither tier is oversubscribed: its rack and minipod uplinks then carry at most what their
  /// NICs send, so no flow pattern is limited beyond the NICs.
  int fold_unit_nodes(const scenario::Cluster&) const override {
    const long long unit = static_cast<long long>(per_rack_) * per_minipod_;  // up to 10^12 at the fields' bounds
    return o_leaf_ <= 1 && o_spine_ <= 1 ? static_cast<int>(std::min<long long>(unit, std::numeric_limits<int>::max())) : 0;
  }

 private:
  int per_rack_, per_minipod_;
  double o_leaf_, o_spine_, lat_;
};

const scenario::FieldList kParams = {
    scenario::Field::integer("nodes_per_rack", "nodes under one leaf (ToR) switch").at_least(1).at_most(1000000)
        .with_default(4),
    scenario::Field::integer("racks_per_minipod", "racks under one spine tier").at_least(1).at_most(1000000)
        .with_default(8),
    scenario::Field::number("leaf_oversubscription", "ratio", "leaf down:up bandwidth ratio").at_least(1).with_default(1.0),
    scenario::Field::number("spine_oversubscription", "ratio", "spine down:up bandwidth ratio").at_least(1).with_default(1.0),
    scenario::Field::number("switch_latency_us", "us", "one switch traversal").at_least(0).with_default(0.5),
};

LLMSIM_REGISTER(Topology, "clos3", "three-tier Clos: leaf per rack, spine per minipod, core (Arnold)", kParams,
                [](const scenario::Params& p, const scenario::Scenario&) -> std::unique_ptr<Topology> {
                  return std::make_unique<Clos3>(p.integer("nodes_per_rack"), p.integer("racks_per_minipod"),
                                                 p.number("leaf_oversubscription"), p.number("spine_oversubscription"),
                                                 p.seconds("switch_latency_us"));
                });

}  // namespace
}  // namespace llmsim::platform
