#pragma once
// "auto": choose the algorithm the way NCCL's tuner does — estimate each candidate's time with an alpha-beta
// model of the group's links and take the fastest. Candidates are NCCL's: ring, tree (all-reduce) and
// in-switch reduction (NVLS) where the switch supports it; hierarchical, halving-doubling and direct are used
// only when asked for. Non-all-reduce kinds: ring where it applies, else direct.
#include "llmsim/collectives/collective.hpp"

namespace llmsim::collectives {

/// Bottleneck bandwidth per direction [bytes/s] and one-hop latency [s] inside a node and between nodes.
struct LinkParams {
  double intra_bandwidth = 0, intra_latency = 0;
  double inter_bandwidth = 0, inter_latency = 0;
};

/// Estimated time of `algorithm` for this group (alpha_beta.hpp with the group's link parameters; a ring over
/// k members per node runs k channels, one per NIC).
double estimate(Kind kind, Algorithm algorithm, const GroupLayout& layout, double bytes, const LinkParams& links);

/// The fastest NCCL-style candidate that supports(kind, ., layout).
Algorithm choose(Kind kind, const GroupLayout& layout, double bytes, const LinkParams& links);

/// "auto" when the network model cannot report routes (packet-level ns-3): ring where it applies, else direct.
Algorithm choose_without_routes(Kind kind, const GroupLayout& layout);

}  // namespace llmsim::collectives
