// `torus`: 2D/3D torus of nodes (TPU-style): one router per node, a link to each neighbour along every
// dimension with wrap-around (one link when a dimension has size 2). Minimal routing (shortest path in hops,
// deterministic tie-break). Bisection across the largest dimension X: 2 * N / X links (N / X when X = 2).
#include <simgrid/s4u.hpp>

#include <algorithm>

#include "llmsim/platform/node.hpp"
#include "llmsim/platform/topology.hpp"
#include "llmsim/util/limits.hpp"

namespace sg4 = simgrid::s4u;

namespace llmsim::platform {
namespace {

class Torus final : public Topology {
 public:
  Torus(int x, int y, int z, double bw, double lat) : dims_{x, y, z}, bw_(bw), lat_(lat) {}

  ClusterPlatform build(const scenario::Cluster& c, const scenario::Hardware& hw, int lane_width,
                        const std::vector<bool>&) const override {
    ClusterPlatform out = empty_platform(c, lane_width);
    auto* zone = graph_zone("torus");
    std::vector<NetPoint*> routers;
    for (int n = 0; n < c.nodes; ++n) routers.push_back(zone->create_router("torus-r" + std::to_string(n)));
    const double link_bw = bw_ * hw.calibration.network_efficiency;
    for (int n = 0; n < c.nodes; ++n) {
      int coord[3] = {n % dims_[0], n / dims_[0] % dims_[1], n / (dims_[0] * dims_[1])};
      for (int d = 0; d < 3; ++d) {
        if (dims_[d] < 2 || (dims_[d] == 2 && coord[d] == 1)) continue;  // size 2: one link per pair
        int next[3] = {coord[0], coord[1], coord[2]};
        next[d] = (coord[d] + 1) % dims_[d];
        const int m = next[0] + dims_[0] * (next[1] + dims_[1] * next[2]);
        connect(zone, routers[n], routers[m],
                duplex_link(zone, "torus-" + std::to_string(n) + "-" + std::to_string(m), link_bw, lat_));
      }
    }
    for (int n = 0; n < c.nodes; ++n) add_node(zone, n, c, hw, routers[n], out);
    zone->seal();
    return out;
  }

  double bisection_bandwidth(const scenario::Cluster& c, const scenario::Hardware& hw) const override {
    const int x = *std::max_element(dims_, dims_ + 3);
    const double links = x == 2 ? c.nodes / 2.0 : 2.0 * c.nodes / x;
    return links * bw_ * hw.calibration.network_efficiency;
  }

 private:
  int dims_[3];
  double bw_, lat_;
};

const scenario::FieldList kParams = {
    scenario::Field::integer("x", "nodes along the first dimension").at_least(1),
    scenario::Field::integer("y", "nodes along the second dimension").at_least(1),
    scenario::Field::integer("z", "nodes along the third dimension (1 for a 2D torus)").at_least(1).with_default(1),
    scenario::Field::number("link_GBps", "GB/s", "bandwidth of one neighbour link, per direction").at_least(limits::kMinRate),
    scenario::Field::number("link_latency_us", "us", "latency of one neighbour hop").at_least(0).with_default(1.0),
};

LLMSIM_REGISTER(Topology, "torus", "2D/3D torus with wrap-around links, minimal routing (TPU-style)", kParams,
                [](const scenario::Params& p, const scenario::Scenario& s) -> std::unique_ptr<Topology> {
                  const int x = p.integer("x"), y = p.integer("y"), z = p.integer("z");
                  require_node_count(s, 1LL * x * y * z, "x*y*z");
                  return std::make_unique<Torus>(x, y, z, p.bytes_per_second("link_GBps"),
                                                 p.seconds("link_latency_us"));
                });

}  // namespace
}  // namespace llmsim::platform
