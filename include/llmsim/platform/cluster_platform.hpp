#pragma once
// Builds the SimGrid platform of a GPU cluster (DESIGN: platform/ builds zones, hosts, links).
//
//   node zone (Full):  G GPU hosts and an NVSwitch host; GPU g <-> NVSwitch: split-duplex link nvl-g (NVLink bandwidth * e_nvlink
//                      per direction, half the NVLink hop latency each way); GPU g -> node gateway: NIC
//                      link nic-k, k = g * nics / G (GPUs share a NIC when nics < G).
//   leaf group (Full): the nodes under one tier of leaf switches: rail_optimized -> one leaf per rail, each
//                      with radix*o/(1+o) down-ports, so down_ports nodes per group; otherwise one leaf per
//                      floor(down_ports / nics) nodes. Node <-> node inside a group crosses one non-blocking
//                      leaf (a FATPIPE link with the switch latency). Cross-rail traffic inside a group is
//                      treated like same-rail traffic (NCCL's PXN forwards it over NVLink first).
//   root (Full):       leaf groups joined by a non-blocking spine; each group's uplink is one split-duplex link
//                      of (its NIC bandwidth / oversubscription) — ECMP over the real uplinks is aggregated,
//                      which is exact for a flow-level model as long as flows hash evenly.
// Inter-node NIC bandwidth is the line rate times calibration.network_efficiency.
//
// Lane aggregation: with lane_width w > 1 one host stands for w consecutive GPUs of a node (a tensor-parallel
// group) and its NVLink and NIC links carry the sum of their bandwidths; a transfer of the group is one flow of
// w times the per-GPU bytes. Under max-min sharing this equals w parallel per-GPU flows exactly when every flow
// in the run is aggregated the same way (all workers have the same width), which holds for Megatron tp groups:
// every lane moves the same bytes at the same time (docs/architecture.md, "Shortcuts").
#include <string>
#include <vector>

#include "llmsim/scenario/scenario.hpp"

namespace simgrid::s4u {
class Host;
class Link;
}  // namespace simgrid::s4u

namespace llmsim::platform {

struct ClusterPlatform {
  int nodes = 0;
  int gpus_per_node = 0;
  int lane_width = 1;                        ///< GPUs per host
  int nodes_per_group = 0;                   ///< nodes under one leaf tier
  std::vector<simgrid::s4u::Host*> hosts;    ///< index = node * (gpus_per_node / lane_width) + local / lane_width
  std::vector<simgrid::s4u::Host*> switches; ///< per node: the NVSwitch as an endpoint (in-switch reduction)
  /// The host carrying GPU `local` of `node`.
  simgrid::s4u::Host* host(int node, int local) const {
    return hosts[node * (gpus_per_node / lane_width) + local / lane_width];
  }
};

/// Nodes under one leaf tier (see above).
int nodes_per_leaf_group(const scenario::Cluster& c);

/// Creates the zones, hosts and links in the current SimGrid engine (which must exist and have no platform).
/// `lane_width` must divide gpus_per_node.
ClusterPlatform build_cluster_platform(const scenario::Cluster& cluster, const scenario::Hardware& hw,
                                       int lane_width = 1);

}  // namespace llmsim::platform
