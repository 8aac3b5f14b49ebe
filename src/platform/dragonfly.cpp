// `dragonfly` (Kim et al., ISCA 2008): `groups` groups of `routers_per_group` routers, `nodes_per_router` nodes
// on each router; routers of a group fully connected by local links; one global link between every pair of
// groups (group a's router (b-1) mod a_r to group b's router a mod a_r for a < b). Minimal routing.
// Bisection (groups split in half): (g/2)^2 global links, or the nodes' NICs if fewer.
#include <simgrid/s4u.hpp>

#include <algorithm>

#include "llmsim/platform/node.hpp"
#include "llmsim/platform/topology.hpp"
#include "llmsim/util/limits.hpp"

namespace sg4 = simgrid::s4u;

namespace llmsim::platform {
namespace {

class Dragonfly final : public Topology {
 public:
  Dragonfly(int g, int a, int p, double local, double global, double lat)
      : g_(g), a_(a), p_(p), local_(local), global_(global), lat_(lat) {}

  ClusterPlatform build(const scenario::Cluster& c, const scenario::Hardware& hw, int lane_width,
                        const std::vector<bool>&) const override {
    ClusterPlatform out = empty_platform(c, lane_width);
    auto* zone = graph_zone("dragonfly");
    const double e = hw.calibration.network_efficiency;
    std::vector<NetPoint*> r;  // index = group * a + router
    for (int i = 0; i < g_ * a_; ++i) r.push_back(zone->create_router("df-g" + std::to_string(i / a_) + "-r" + std::to_string(i % a_)));
    for (int grp = 0; grp < g_; ++grp)
      for (int i = 0; i < a_; ++i)
        for (int j = i + 1; j < a_; ++j)
          connect(zone, r[grp * a_ + i], r[grp * a_ + j],
                  duplex_link(zone, "df-local-" + std::to_string(grp) + "-" + std::to_string(i) + "-" + std::to_string(j),
                              local_ * e, lat_));
    for (int ga = 0; ga < g_; ++ga)
      for (int gb = ga + 1; gb < g_; ++gb)
        connect(zone, r[ga * a_ + (gb - 1) % a_], r[gb * a_ + ga % a_],
                duplex_link(zone, "df-global-" + std::to_string(ga) + "-" + std::to_string(gb), global_ * e, lat_));
    for (int n = 0; n < c.nodes; ++n) add_node(zone, n, c, hw, r[n / p_], out);
    zone->seal();
    return out;
  }

  double bisection_bandwidth(const scenario::Cluster& c, const scenario::Hardware& hw) const override {
    const double e = hw.calibration.network_efficiency;
    const double global = double(g_ / 2) * (g_ - g_ / 2) * global_ * e;
    return std::min(global, c.nodes / 2.0 * c.nics_per_node * c.nic_bandwidth * e);
  }

 private:
  int g_, a_, p_;
  double local_, global_, lat_;
};

const scenario::FieldList kParams = {
    scenario::Field::integer("groups", "groups (g)").at_least(1),
    scenario::Field::integer("routers_per_group", "routers per group (a)").at_least(1),
    scenario::Field::integer("nodes_per_router", "nodes on each router (p)").at_least(1),
    scenario::Field::number("local_GBps", "GB/s", "bandwidth of a link inside a group, per direction").at_least(limits::kMinRate),
    scenario::Field::number("global_GBps", "GB/s", "bandwidth of the link between two groups, per direction").at_least(limits::kMinRate),
    scenario::Field::number("link_latency_us", "us", "latency of one router-to-router hop").at_least(0).with_default(1.0),
};

LLMSIM_REGISTER(Topology, "dragonfly", "dragonfly: all-to-all routers in a group, one global link per group pair", kParams,
                [](const scenario::Params& p, const scenario::Scenario& s) -> std::unique_ptr<Topology> {
                  const int g = p.integer("groups"), a = p.integer("routers_per_group"), n = p.integer("nodes_per_router");
                  require_node_count(s, 1LL * g * a * n, "groups*routers_per_group*nodes_per_router");
                  return std::make_unique<Dragonfly>(g, a, n, p.bytes_per_second("local_GBps"),
                                                     p.bytes_per_second("global_GBps"),
                                                     p.seconds("link_latency_us"));
                });

}  // namespace
}  // namespace llmsim::platform
