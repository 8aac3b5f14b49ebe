#pragma once
// Which up node takes over a failed one (bamboo, mecefo): a node of the same data-parallel group (the block of
// JobCosts::group_nodes nodes holding the same pipeline stage), each covering at most one failed node.
#include <set>

#include "llmsim/strategy/fault_tolerance.hpp"

namespace llmsim::strategy {

/// True when every node in `down` has a distinct up node of its group to take over: its predecessor in the
/// group's ring (`predecessor_only`, Bamboo's replica holder) or any up node (MeCeFO's neighbour, nearest first).
inline bool covered(const JobCosts& c, const std::set<int>& down, bool predecessor_only) {
  std::set<int> busy;
  const int g = c.group_nodes;
  for (int d : down) {
    const int base = d / g * g;
    bool found = false;
    for (int step = 1; step < g && !found; ++step) {
      const int n = base + ((d - base) - step + g) % g;
      if (!down.count(n) && !busy.count(n)) busy.insert(n), found = true;
      if (predecessor_only) break;
    }
    if (!found) return false;
  }
  return true;
}

}  // namespace llmsim::strategy
