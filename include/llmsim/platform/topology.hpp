#pragma once
// Topology family (`cluster.topology`): one file per topology under src/platform/, registered by name with its
// parameter table like every strategy. A topology builds the SimGrid platform and states its bisection
// bandwidth in closed form (for docs and tests).
#include <memory>
#include <vector>

#include "llmsim/platform/cluster_platform.hpp"
#include "llmsim/strategy/registry.hpp"

namespace llmsim::platform {

class Topology {
 public:
  virtual ~Topology() = default;
  /// `used_nodes[n]`: node n hosts a worker (empty: every node). A topology may leave the other nodes out of
  /// the platform (fat-tree does, for folded replicas: SimGrid checks each new link's name against every zone,
  /// so building 2,048 node zones costs seconds); the routes between the nodes it builds are those of the
  /// whole cluster, and ClusterPlatform::host of a node left out is null.
  virtual ClusterPlatform build(const scenario::Cluster& c, const scenario::Hardware& hw, int lane_width,
                                const std::vector<bool>& used_nodes) const = 0;
  /// Bandwidth across the worst cut into two equal halves of the nodes, per direction [bytes/s], with
  /// calibrated NIC and link efficiencies.
  virtual double bisection_bandwidth(const scenario::Cluster& c, const scenario::Hardware& hw) const = 0;
  /// Nodes of the unit the topology repeats with identical links and latencies (a non-blocking fat-tree's leaf
  /// group, a non-blocking clos3's minipod): data-parallel replicas spanning two units meet every kind of route
  /// the whole job meets (workload/replica_fold.hpp). 0 when replicas cannot be folded: routes whose latency or
  /// sharing depends on the distance (torus, dragonfly, meshes) or an oversubscribed tier.
  virtual int fold_unit_nodes(const scenario::Cluster&) const { return 0; }
};

using TopologyRegistry = strategy::Registry<Topology>;

/// Throws ScenarioError at /cluster/topology when a topology's shape holds `product` nodes (`formula` says how,
/// e.g. "x*y*z") but the cluster has another number.
void require_node_count(const scenario::Scenario& s, long long product, const std::string& formula);

/// The topology named in the scenario; throws ScenarioError (/cluster/topology/...) when its parameters do not
/// fit the cluster (e.g. torus dimensions whose product is not the node count).
std::unique_ptr<Topology> make_topology(const scenario::Scenario& s);

}  // namespace llmsim::platform
