#pragma once
// Builds the SimGrid platform of a GPU cluster (DESIGN: platform/ builds zones, hosts, links).
//
//   node zone (Full):  G GPU hosts; GPU g <-> NVSwitch: split-duplex link nvl-g (NVLink bandwidth * e_nvlink
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
  int nodes_per_group = 0;                   ///< nodes under one leaf tier
  std::vector<simgrid::s4u::Host*> gpus;     ///< index = global GPU rank = node * gpus_per_node + local
  simgrid::s4u::Host* gpu(int node, int local) const { return gpus[node * gpus_per_node + local]; }
};

/// Nodes under one leaf tier (see above).
int nodes_per_leaf_group(const scenario::Cluster& c);

/// Creates the zones, hosts and links in the current SimGrid engine (which must exist and have no platform).
ClusterPlatform build_cluster_platform(const scenario::Cluster& cluster, const scenario::Hardware& hw);

}  // namespace llmsim::platform
