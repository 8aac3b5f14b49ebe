#pragma once
// `fat-tree`: two-level leaf/spine (hierarchical SimGrid zones).
//   leaf group (Full zone): the nodes under one tier of leaf switches: rail_optimized -> one leaf per rail, each
//     with d = floor(radix * o / (1 + o)) down-ports, so d nodes per group; otherwise one leaf per floor(d / nics)
//     nodes. Node <-> node inside a group crosses one non-blocking leaf (a FATPIPE link with the switch latency).
//     Cross-rail traffic inside a group is treated like same-rail traffic (NCCL's PXN forwards it over NVLink).
//   root (Full zone): leaf groups joined by a non-blocking spine (FATPIPE, switch latency); each group's uplink is
//     one split-duplex link of (its NIC bandwidth / o) — ECMP over the real uplinks aggregated, exact for a
//     flow-level model as long as flows hash evenly.
// Bisection: min(N/2 nodes' NICs, half the groups' uplinks) = N/2 * nics * B_nic * e_net / o when groups < N
// (o applies only when traffic leaves a group).
#include "llmsim/scenario/scenario.hpp"

namespace llmsim::platform {

struct FatTreeParams {
  bool rail_optimized = true;
  int leaf_radix = 40;
  double oversubscription = 1;
  double switch_latency = 0.5e-6;  ///< [s]
};

FatTreeParams fat_tree_params(const scenario::Cluster& c);
int nodes_per_leaf_group(const scenario::Cluster& c, const FatTreeParams& p);

}  // namespace llmsim::platform
