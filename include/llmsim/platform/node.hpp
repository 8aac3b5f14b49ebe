#pragma once
// Building blocks shared by the topologies: links and the node model.
//   node: lanes = G / w hosts ("node<i>-gpu<j>"), each with NVLink bandwidth w * B_nvlink * e_nvlink;
//     intra_node "nvswitch":    GPU <-> GPU over both GPUs' NVLink links (non-blocking switch), GPU <-> NVSwitch
//                               endpoint over its NVLink link and an NVLS port of w * B_nvlink * e_in_switch;
//     intra_node "nvlink-mesh": a dedicated link per GPU pair of (w*w) * B_nvlink * e_nvlink / (G-1), no switch;
//     NICs: min(lanes, nics) links of (nics / links) * B_nic * e_net each, host j uses NIC j * links / lanes,
//           routed from the GPU to `attach` (the node gateway or the network router the node hangs off).
#include <string>

#include "llmsim/platform/cluster_platform.hpp"

namespace simgrid::s4u {
class Link;
class NetZone;
}  // namespace simgrid::s4u
namespace simgrid::kernel::routing {
class NetPoint;
}

namespace llmsim::platform {

using NetPoint = simgrid::kernel::routing::NetPoint;

simgrid::s4u::Link* duplex_link(simgrid::s4u::NetZone* zone, const std::string& name, double bandwidth, double latency);
/// Symmetric route a <-> b over one split-duplex link (UP from a to b).
void connect(simgrid::s4u::NetZone* zone, NetPoint* a, NetPoint* b, simgrid::s4u::Link* link);

/// Adds node `node` (hosts, NVLink, switch endpoint, NICs to `attach`) into `zone` and appends its hosts and
/// switch to `out` (whose lane_width must be set).
void add_node(simgrid::s4u::NetZone* zone, int node, const scenario::Cluster& c, const scenario::Hardware& hw,
              NetPoint* attach, ClusterPlatform& out);

/// Appends the placeholders (null hosts and switch) of a node left out of the platform to `out`, so that
/// ClusterPlatform::host keeps its indexing.
void leave_out_node(const scenario::Cluster& c, ClusterPlatform& out);

/// Per-GPU bandwidth [bytes/s] of a collective among `group` GPUs of one node, for the analytic tp collectives
/// that do not run on the platform's links: the GPU's whole calibrated NVLink bandwidth `nvlink` behind an NVSwitch;
/// on a mesh only its links to the group's other members, each 1/(G-1) of it (as the platform's mesh links), which
/// NCCL uses at once (a channel per link): (group - 1) / (G - 1) of it. A group of one has no collective: what it
/// sends goes to one peer over one link, as a pair's.
double intra_node_group_bandwidth(const scenario::Cluster& c, double nvlink, int group);

/// An empty platform description for `c` with hosts of `lane_width` GPUs (filled by add_node).
ClusterPlatform empty_platform(const scenario::Cluster& c, int lane_width);

/// A flat Dijkstra-routed zone for graph topologies (torus, dragonfly, clos3, mesh, trees): shortest paths in
/// hops, ties broken deterministically by SimGrid (no adaptive routing, no ECMP).
simgrid::s4u::NetZone* graph_zone(const std::string& name);

}  // namespace llmsim::platform
