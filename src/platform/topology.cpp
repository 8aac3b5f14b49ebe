#include "llmsim/platform/topology.hpp"
#include "llmsim/strategy/family.hpp"

#include "llmsim/util/error.hpp"

namespace llmsim::platform {

std::unique_ptr<Topology> make_topology(const scenario::Scenario& s) {
  return TopologyRegistry::instance().make(s.cluster.topology, s, "/cluster/topology", "topology");
}

void require_node_count(const scenario::Scenario& s, long long product, const std::string& formula) {
  if (product != s.cluster.nodes)
    throw ScenarioError("/cluster/topology", formula + " = " + std::to_string(product) + " but the cluster has " +
                                                 std::to_string(s.cluster.nodes) + " nodes; they must be equal");
}

ClusterPlatform build_platform(const scenario::Scenario& s, int lane_width, const std::vector<bool>& used_nodes) {
  return make_topology(s)->build(s.cluster, s.hardware, lane_width, used_nodes);
}

LLMSIM_FAMILY(Topology, "cluster", "topology", "fat-tree", "network topology between nodes", 10,
              {"topologies", "topology kinds (cluster.topology.name)", 1},
              [](const scenario::Scenario& s) { make_topology(s); });

}  // namespace llmsim::platform
