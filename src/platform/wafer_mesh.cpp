// `wafer-mesh`: a 2D mesh (no wrap-around) of chiplets on a wafer; each node is a chiplet with its own HBM
// (the hardware preset's memory) and one router; die-to-die links join neighbours. A chiplet's injection port
// into the mesh is its NIC (cluster.nics_per_node x nic_Gbps). Minimal routing. Bisection across the longer
// side: min(rows, cols) die-to-die links.
#include <simgrid/s4u.hpp>

#include <algorithm>

#include "llmsim/platform/node.hpp"
#include "llmsim/platform/topology.hpp"
#include "llmsim/util/limits.hpp"

namespace sg4 = simgrid::s4u;

namespace llmsim::platform {
namespace {

class WaferMesh final : public Topology {
 public:
  WaferMesh(int rows, int cols, double bw, double lat) : rows_(rows), cols_(cols), bw_(bw), lat_(lat) {}

  ClusterPlatform build(const scenario::Cluster& c, const scenario::Hardware& hw, int lane_width,
                        const std::vector<bool>&) const override {
    ClusterPlatform out = empty_platform(c, lane_width);
    auto* zone = graph_zone("wafer");
    std::vector<NetPoint*> r;
    for (int n = 0; n < c.nodes; ++n) r.push_back(zone->create_router("chiplet" + std::to_string(n) + "-router"));
    auto d2d = [&](int a, int b) {
      connect(zone, r[a], r[b], duplex_link(zone, "d2d-" + std::to_string(a) + "-" + std::to_string(b), bw_, lat_));
    };
    for (int row = 0; row < rows_; ++row)
      for (int col = 0; col < cols_; ++col) {
        const int n = row * cols_ + col;
        if (col + 1 < cols_) d2d(n, n + 1);
        if (row + 1 < rows_) d2d(n, n + cols_);
      }
    for (int n = 0; n < c.nodes; ++n) add_node(zone, n, c, hw, r[n], out);
    zone->seal();
    return out;
  }

  double bisection_bandwidth(const scenario::Cluster&, const scenario::Hardware&) const override {
    return std::min(rows_, cols_) * bw_;
  }

 private:
  int rows_, cols_;
  double bw_, lat_;
};

const scenario::FieldList kParams = {
    scenario::Field::integer("rows", "chiplet rows").at_least(1),
    scenario::Field::integer("cols", "chiplet columns").at_least(1),
    scenario::Field::number("d2d_GBps", "GB/s", "die-to-die link bandwidth, per direction").at_least(limits::kMinRate),
    scenario::Field::number("d2d_latency_us", "us", "die-to-die hop latency").at_least(0).with_default(0.05),
};

LLMSIM_REGISTER(Topology, "wafer-mesh", "2D mesh of chiplets joined by die-to-die links (wafer-scale)", kParams,
                [](const scenario::Params& p, const scenario::Scenario& s) -> std::unique_ptr<Topology> {
                  const int rows = p.integer("rows"), cols = p.integer("cols");
                  require_node_count(s, 1LL * rows * cols, "rows*cols (chiplets)");
                  return std::make_unique<WaferMesh>(rows, cols, p.bytes_per_second("d2d_GBps"),
                                                     p.seconds("d2d_latency_us"));
                });

}  // namespace
}  // namespace llmsim::platform
