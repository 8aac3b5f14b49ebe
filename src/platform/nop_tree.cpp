// `nop-tree` (Mozart's 2.5D network-on-package): node 0 is the root chiplet under the root switch; the other
// nodes are leaf chiplets in `groups` groups of `chiplets_per_group`, each group under its own switch, joined to
// the root switch by one NoP link; each group switch also holds the group's DRAM/HBM I/O, an endpoint reached
// over a link of `dram_GBps` (ClusterPlatform::memories, one per group). A chiplet's port into its switch is
// its NIC (cluster.nics_per_node x nic_Gbps). Bisection (groups split in half): floor(groups/2) NoP links.
#include <simgrid/s4u.hpp>

#include "llmsim/platform/node.hpp"
#include "llmsim/platform/topology.hpp"
#include "llmsim/util/limits.hpp"

namespace sg4 = simgrid::s4u;

namespace llmsim::platform {
namespace {

class NopTree final : public Topology {
 public:
  NopTree(int groups, int per_group, double bw, double lat, double dram)
      : groups_(groups), per_group_(per_group), bw_(bw), lat_(lat), dram_(dram) {}

  ClusterPlatform build(const scenario::Cluster& c, const scenario::Hardware& hw, int lane_width,
                        const std::vector<bool>&) const override {
    ClusterPlatform out = empty_platform(c, lane_width);
    auto* zone = graph_zone("nop-tree");
    auto* root = zone->create_router("nop-root");
    std::vector<NetPoint*> group_switch;
    for (int g = 0; g < groups_; ++g) {
      const std::string name = "nop-group" + std::to_string(g);
      group_switch.push_back(zone->create_router(name + "-switch"));
      connect(zone, group_switch[g], root, duplex_link(zone, name + "-up", bw_, lat_));
      auto* dram = zone->create_host(name + "-dram", 1e12)->seal();
      out.memories.push_back(dram);
      connect(zone, dram->get_netpoint(), group_switch[g], duplex_link(zone, name + "-dram-io", dram_, lat_));
    }
    add_node(zone, 0, c, hw, root, out);
    for (int n = 1; n < c.nodes; ++n) add_node(zone, n, c, hw, group_switch[(n - 1) / per_group_], out);
    zone->seal();
    return out;
  }

  double bisection_bandwidth(const scenario::Cluster&, const scenario::Hardware&) const override {
    return (groups_ / 2) * bw_;
  }

 private:
  int groups_, per_group_;
  double bw_, lat_, dram_;
};

const scenario::FieldList kParams = {
    scenario::Field::integer("groups", "groups of leaf chiplets").at_least(1),
    scenario::Field::integer("chiplets_per_group", "leaf chiplets per group").at_least(1),
    scenario::Field::number("link_GBps", "GB/s", "NoP link between a group switch and the root, per direction").at_least(limits::kMinRate),
    scenario::Field::number("link_latency_us", "us", "NoP hop latency").at_least(0).with_default(0.05),
    scenario::Field::number("dram_GBps", "GB/s", "DRAM/HBM I/O bandwidth of a group").at_least(limits::kMinRate),
};

LLMSIM_REGISTER(Topology, "nop-tree", "Mozart's network-on-package tree: root chiplet, group switches with DRAM I/O", kParams,
                [](const scenario::Params& p, const scenario::Scenario& s) -> std::unique_ptr<Topology> {
                  const int g = p.integer("groups"), k = p.integer("chiplets_per_group");
                  require_node_count(s, 1 + 1LL * g * k, "1 root + groups*chiplets_per_group (chiplets)");
                  return std::make_unique<NopTree>(g, k, p.bytes_per_second("link_GBps"),
                                                   p.seconds("link_latency_us"),
                                                   p.bytes_per_second("dram_GBps"));
                });

}  // namespace
}  // namespace llmsim::platform
