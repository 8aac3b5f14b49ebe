#include "llmsim/collectives/auto_select.hpp"

#include <algorithm>
#include <limits>

#include "llmsim/collectives/alpha_beta.hpp"

namespace llmsim::collectives {

double estimate(Kind kind, Algorithm algorithm, const GroupLayout& layout, double bytes, const LinkParams& l) {
  const int n = layout.represents();
  const bool multi = layout.nodes() > 1;
  const int k = std::max(1, layout.members_per_node());
  if (algorithm == Algorithm::Hierarchical)
    return hierarchical_time(k, n / k, bytes, l.intra_bandwidth, l.intra_latency, l.inter_bandwidth, l.inter_latency);
  double bw = multi ? l.inter_bandwidth : l.intra_bandwidth;
  const double alpha = multi ? l.inter_latency : l.intra_latency;
  if (algorithm == Algorithm::Ring && multi) bw = std::min(l.intra_bandwidth, k * l.inter_bandwidth);
  return alpha_beta_time(kind, algorithm, n, bytes, bw, alpha, layout.window);
}

Algorithm choose(Kind kind, const GroupLayout& layout, double bytes, const LinkParams& links) {
  Algorithm best = Algorithm::Direct;
  double best_time = std::numeric_limits<double>::infinity();
  for (Algorithm a : {Algorithm::Ring, Algorithm::Tree, Algorithm::InSwitch}) {
    if (!supports(kind, a, layout)) continue;
    const double t = estimate(kind, a, layout, bytes, links);
    if (t < best_time) {
      best_time = t;
      best = a;
    }
  }
  return best;
}

Algorithm choose_without_routes(Kind kind, const GroupLayout& layout) {
  return supports(kind, Algorithm::Ring, layout) ? Algorithm::Ring : Algorithm::Direct;
}

}  // namespace llmsim::collectives
