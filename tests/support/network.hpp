#pragma once
// Link parameters of the fat-tree test clusters, as the platform builds them (platform/fat_tree.hpp).
#include "llmsim/platform/fat_tree.hpp"
#include "llmsim/scenario/scenario.hpp"

namespace llmsim::test {

/// One NIC's effective bandwidth per direction [bytes/s].
inline double nic(const scenario::Scenario& s) { return s.cluster.nic_bandwidth * s.hardware.calibration.network_efficiency; }
/// Latency of a route between nodes of one leaf group: NIC, leaf, NIC [s].
inline double leaf_alpha(const scenario::Scenario& s) {
  return 2 * s.cluster.nic_latency + platform::fat_tree_params(s.cluster).switch_latency;
}

}  // namespace llmsim::test
