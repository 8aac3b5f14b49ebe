// Double binary tree all-reduce (Sanders, Speck & Traeff 2009; NCCL 2.4). Tree A is a heap over the member
// order (parent of i is (i-1)/2), tree B the same heap over the reversed order, so a member is internal in at
// most one tree. Each tree reduces then broadcasts half of the buffer, pipelined: one step up, one step down,
// each with depth-1 extra latency hops (depth of the group the members represent, when folded).
#include "llmsim/collectives/algorithms.hpp"
#include "llmsim/collectives/alpha_beta.hpp"

namespace llmsim::collectives {

std::vector<Step> tree_plan(const GroupLayout& layout, double bytes) {
  const int n = layout.size();
  Step up, down;
  for (int tree = 0; tree < 2; ++tree)
    for (int i = 1; i < n; ++i) {
      const int child = tree == 0 ? i : n - 1 - i;
      const int parent = tree == 0 ? (i - 1) / 2 : n - 1 - (i - 1) / 2;
      up.transfers.push_back({child, parent, bytes / 2});
      down.transfers.push_back({parent, child, bytes / 2});
    }
  up.extra_latency_hops = down.extra_latency_hops = tree_depth(layout.represents()) - 1;
  return {up, down};
}

}  // namespace llmsim::collectives
