#pragma once
// Topology family (`cluster.topology`): one file per topology under src/platform/, registered by name with its
// parameter table like every strategy. A topology builds the SimGrid platform and states its bisection
// bandwidth in closed form (for docs and tests).
#include <memory>

#include "llmsim/platform/cluster_platform.hpp"
#include "llmsim/strategy/registry.hpp"

namespace llmsim::platform {

class Topology {
 public:
  virtual ~Topology() = default;
  virtual ClusterPlatform build(const scenario::Cluster& c, const scenario::Hardware& hw, int lane_width) const = 0;
  /// Bandwidth across the worst cut into two equal halves of the nodes, per direction [bytes/s], with
  /// calibrated NIC and link efficiencies.
  virtual double bisection_bandwidth(const scenario::Cluster& c, const scenario::Hardware& hw) const = 0;
};

using TopologyRegistry = strategy::Registry<Topology>;

/// Throws ScenarioError at /cluster/topology when a topology's shape holds `product` nodes (`formula` says how,
/// e.g. "x*y*z") but the cluster has another number.
void require_node_count(const scenario::Scenario& s, long long product, const std::string& formula);

/// The topology named in the scenario; throws ScenarioError (/cluster/topology/...) when its parameters do not
/// fit the cluster (e.g. torus dimensions whose product is not the node count).
std::unique_ptr<Topology> make_topology(const scenario::Scenario& s);

}  // namespace llmsim::platform
