#include "llmsim/platform/node.hpp"

#include <simgrid/s4u.hpp>

#include <algorithm>

namespace sg4 = simgrid::s4u;

namespace llmsim::platform {

sg4::Link* duplex_link(sg4::NetZone* zone, const std::string& name, double bandwidth, double latency) {
  return zone->create_split_duplex_link(name, bandwidth)->set_latency(latency)->seal();
}

void connect(sg4::NetZone* zone, NetPoint* a, NetPoint* b, sg4::Link* link) {
  zone->add_route(a, b, nullptr, nullptr, {{link, sg4::LinkInRoute::Direction::UP}}, true);
}

double intra_node_group_bandwidth(const scenario::Cluster& c, double nvlink, int group) {
  if (c.intra_node != "nvlink-mesh" || c.gpus_per_node < 2) return nvlink;
  return nvlink * (std::clamp(group, 2, c.gpus_per_node) - 1) / (c.gpus_per_node - 1);
}

ClusterPlatform empty_platform(const scenario::Cluster& c, int lane_width) {
  ClusterPlatform out;
  out.nodes = c.nodes;
  out.gpus_per_node = c.gpus_per_node;
  out.lane_width = lane_width;
  return out;
}

void leave_out_node(const scenario::Cluster& c, ClusterPlatform& out) {
  out.hosts.insert(out.hosts.end(), c.gpus_per_node / out.lane_width, nullptr);
  out.switches.push_back(nullptr);
}

sg4::NetZone* graph_zone(const std::string& name) { return sg4::create_dijkstra_zone(name, true); }

void add_node(sg4::NetZone* zone, int node, const scenario::Cluster& c, const scenario::Hardware& hw, NetPoint* attach,
              ClusterPlatform& out) {
  using Dir = sg4::LinkInRoute::Direction;
  const std::string prefix = "node" + std::to_string(node);
  const int w = out.lane_width, lanes = c.gpus_per_node / w;
  const double nvlink = hw.nvlink_bandwidth * hw.calibration.nvlink_efficiency;
  const bool mesh = c.intra_node == "nvlink-mesh";
  const int nic_links = std::min(lanes, c.nics_per_node);
  const double nic_bw = double(c.nics_per_node) / nic_links * c.nic_bandwidth * hw.calibration.network_efficiency;
  std::vector<sg4::Host*> hosts;
  std::vector<sg4::Link*> nvl, nic;
  for (int k = 0; k < nic_links; ++k) nic.push_back(duplex_link(zone, prefix + "-nic" + std::to_string(k), nic_bw, c.nic_latency));
  for (int g = 0; g < lanes; ++g) {
    hosts.push_back(zone->create_host(prefix + "-gpu" + std::to_string(g * w), 1e12)->seal());
    out.hosts.push_back(hosts.back());
    if (!mesh) nvl.push_back(duplex_link(zone, prefix + "-nvl" + std::to_string(g * w), w * nvlink, hw.nvlink_latency / 2));
  }
  sg4::Host* nvswitch = mesh ? nullptr : zone->create_host(prefix + "-nvswitch", 1e12)->seal();
  out.switches.push_back(nvswitch);
  for (int g = 0; g < lanes; ++g) {
    for (int j = g + 1; j < lanes; ++j) {
      if (mesh) {
        const double pair = double(w) * w * nvlink / (c.gpus_per_node - 1);
        connect(zone, hosts[g]->get_netpoint(), hosts[j]->get_netpoint(),
                duplex_link(zone, prefix + "-nvl" + std::to_string(g * w) + "-" + std::to_string(j * w), pair, hw.nvlink_latency));
      } else {
        zone->add_route(hosts[g]->get_netpoint(), hosts[j]->get_netpoint(), nullptr, nullptr,
                        {{nvl[g], Dir::UP}, {nvl[j], Dir::DOWN}}, true);
      }
    }
    if (nvswitch) {
      // The switch port's reduction throughput bounds in-switch traffic below the NVLink rate.
      auto* port = duplex_link(zone, prefix + "-nvls" + std::to_string(g * w),
                               w * hw.nvlink_bandwidth * hw.calibration.in_switch_efficiency, 0.0);
      zone->add_route(hosts[g]->get_netpoint(), nvswitch->get_netpoint(), nullptr, nullptr,
                      {{nvl[g], Dir::UP}, {port, Dir::UP}}, true);
    }
    connect(zone, hosts[g]->get_netpoint(), attach, nic[g * nic_links / lanes]);
  }
}

}  // namespace llmsim::platform
