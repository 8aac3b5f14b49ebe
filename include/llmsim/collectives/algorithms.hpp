#pragma once
// The steps of each collective algorithm (one file each under src/collectives/); make_plan dispatches here
// after checking supports(). Member indices are positions in the group.
#include <vector>

#include "llmsim/collectives/collective.hpp"

namespace llmsim::collectives {

/// Ring channels (ring.hpp) for all-reduce, reduce-scatter, all-gather; a pipelined chain from/to member 0
/// for broadcast/reduce. One aggregated step.
std::vector<Step> ring_steps_plan(Kind kind, const GroupLayout& layout, double bytes);
/// Double binary tree all-reduce: reduce up both trees (S/2 each), then broadcast down.
std::vector<Step> tree_plan(const GroupLayout& layout, double bytes);
/// Recursive halving (reduce-scatter) and doubling (all-gather); n a power of two.
std::vector<Step> halving_doubling_plan(Kind kind, int n, double bytes);
/// Every pair at once, in rounds of `window` peers (0 = all peers in one round).
std::vector<Step> direct_plan(Kind kind, int n, double bytes, int window, const std::vector<double>& matrix);
/// Intra-node ring reduce-scatter, inter-node ring all-reduce per local rank, intra-node ring all-gather.
std::vector<Step> hierarchical_plan(const GroupLayout& layout, double bytes);
/// In-switch (NVLS-like) all-reduce through the node switch (endpoint n).
std::vector<Step> in_switch_plan(int n, double bytes);

}  // namespace llmsim::collectives
