#include "llmsim/workload/replica_fold.hpp"

#include <algorithm>
#include <set>

#include "llmsim/workload/training.hpp"

namespace llmsim::workload {

namespace {

bool folding_allowed(const scenario::Scenario& s, int unit_nodes) {
  const auto& a = s.network.collective_algorithm;
  return s.network.fold_replicas && !s.faults.enabled() && unit_nodes > 0 &&
         (a == "auto" || a == "ring" || a == "tree" || a == "hierarchical");
}

/// Nodes of the stage-0 replicas (every cp rank) of dp index d.
std::vector<int> nodes_of(const scenario::Scenario& s, const TrainingLayout& l, int d) {
  std::vector<int> out;
  for (int c = 0; c < l.cp; ++c)
    for (int g = 0; g < l.tp; ++g)
      out.push_back((first_rank(s, l, c, d, 0) + g) / s.cluster.gpus_per_node);
  return out;
}

}  // namespace

int simulated_dp(const scenario::Scenario& s, const TrainingLayout& l, int unit_nodes) {
  if (!folding_allowed(s, unit_nodes)) return l.dp;
  std::set<int> all;
  for (int d = 0; d < l.dp; ++d)
    for (int n : nodes_of(s, l, d)) all.insert(n);
  const size_t target = std::min(all.size(), static_cast<size_t>(2) * unit_nodes);
  const int least = std::max(2, l.dp >= 2 * l.ep ? 2 * l.ep : l.ep);
  std::set<int> used;
  for (int f = 1; f < l.dp; ++f) {  // replicas 0..f-1 taken
    for (int n : nodes_of(s, l, f - 1)) used.insert(n);
    if (f < least || f % l.ep != 0 || used.size() < target) continue;
    const auto next = nodes_of(s, l, f);
    if (std::none_of(next.begin(), next.end(), [&](int n) { return used.count(n) > 0; })) return f;
  }
  return l.dp;
}

}  // namespace llmsim::workload
