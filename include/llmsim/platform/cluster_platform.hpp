#pragma once
// The SimGrid platform of a cluster, built by the topology named in `cluster.topology` (topology.hpp).
// Every topology shares the node model (node.hpp): GPUs behind an NVSwitch (or a point-to-point NVLink mesh),
// an NVSwitch endpoint for in-switch reduction, and NICs that attach the node to the network.
//
// Lane aggregation: with lane_width w > 1 one host stands for w consecutive GPUs of a node (a tensor-parallel
// group) and its NVLink and NIC links carry the sum of their bandwidths; a transfer of the group is one flow of
// w times the per-GPU bytes. Under max-min sharing this equals w parallel per-GPU flows exactly when every flow
// in the run is aggregated the same way (all workers have the same width), which holds for Megatron tp groups:
// every lane moves the same bytes at the same time (docs/architecture.md, "Shortcuts"). A topology that cannot
// aggregate (simgrid-xml) builds one host per GPU and reports lane_width 1; the engine then sends one flow
// per lane.
#include <string>
#include <vector>

#include "llmsim/scenario/scenario.hpp"

namespace simgrid::s4u {
class Host;
}  // namespace simgrid::s4u

namespace llmsim::platform {

struct ClusterPlatform {
  int nodes = 0;
  int gpus_per_node = 0;
  int lane_width = 1;                        ///< GPUs per host
  std::vector<simgrid::s4u::Host*> hosts;    ///< index = node * (gpus_per_node / lane_width) + local / lane_width
  std::vector<simgrid::s4u::Host*> switches; ///< per node: the NVSwitch as an endpoint (null without one)
  std::vector<simgrid::s4u::Host*> memories; ///< off-chip memory endpoints (nop-tree DRAM per group), if any
  /// False for platforms read from a file: SimGrid 3.32's link-load plugin cannot attach to the split-duplex
  /// links of a parsed <cluster>, so links.csv stays empty there.
  bool link_statistics = true;
  /// The host carrying GPU `local` of `node`.
  simgrid::s4u::Host* host(int node, int local) const {
    return hosts[node * (gpus_per_node / lane_width) + local / lane_width];
  }
};

/// Creates the zones, hosts and links of `s.cluster` in the current SimGrid engine (which must exist and have
/// no platform yet). `lane_width` must divide gpus_per_node; topologies may build a smaller one (see above).
/// Throws ScenarioError for a topology that cannot be built (e.g. an unreadable platform file). `used_nodes`
/// as in Topology::build (empty: every node).
ClusterPlatform build_platform(const scenario::Scenario& s, int lane_width, const std::vector<bool>& used_nodes = {});

}  // namespace llmsim::platform
