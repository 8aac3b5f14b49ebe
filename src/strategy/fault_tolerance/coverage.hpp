#pragma once
// Which up node takes over a failed one (bamboo, mecefo), each covering at most one failed node.
// Nodes are laid out stage-major: consecutive blocks of JobCosts::group_nodes nodes hold the same pipeline stage.
#include <set>
#include <string>

#include "llmsim/util/error.hpp"

#include "llmsim/strategy/fault_tolerance.hpp"

namespace llmsim::strategy {

/// Bamboo, Oobleck and MeCeFO carry on without a failed node on the others: a single-node job has none (the
/// module would charge its costs for a node covering itself). Throws ScenarioError at /strategies/fault_tolerance.
inline void require_other_nodes(const scenario::Scenario& s, const std::string& module) {
  if (s.cluster.nodes < 2)
    throw ScenarioError("/strategies/fault_tolerance", module + " carries on without a failed node on the other "
                                                       "nodes, and this job has 1 (cluster.nodes >= 2; on one node "
                                                       "use checkpoint-restart or none)");
}

enum class Cover {
  /// Bamboo: the node holding the same position in the previous pipeline stage (the stages form a ring; it runs
  /// its successor's forward redundantly). With a single stage, the previous node of the data-parallel ring.
  kPipelinePredecessor,
  /// MeCeFO: any up node of the failed node's data-parallel group (same stage), nearest first.
  kDataParallelNeighbour,
};

/// True when every node in `down` has a distinct up node to take over it.
inline bool covered(const JobCosts& c, const std::set<int>& down, Cover how) {
  std::set<int> busy;
  const int g = c.group_nodes, stages = c.nodes / g;
  const auto take = [&](int n) { return !down.count(n) && busy.insert(n).second; };
  for (int d : down) {
    const int base = d / g * g;
    bool found = false;
    if (how == Cover::kPipelinePredecessor && stages > 1) {
      found = take((d / g - 1 + stages) % stages * g + d % g);
    } else {
      for (int step = 1; step < g && !found; ++step) {
        found = take(base + ((d - base) - step + g) % g);
        if (how == Cover::kPipelinePredecessor) break;
      }
    }
    if (!found) return false;
  }
  return true;
}

}  // namespace llmsim::strategy
