#include "llmsim/collectives/alpha_beta.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "llmsim/collectives/ring.hpp"

namespace llmsim::collectives {

int tree_depth(int n) {
  int d = 0;
  while ((2 << d) <= n) ++d;
  return d;
}

double alpha_beta_time(Kind kind, Algorithm algorithm, int n, double S, double B, double a, int window) {
  if (n <= 1) return 0;
  const double share = (n - 1.0) / n * S;
  const int log2n = static_cast<int>(std::lround(std::log2(n)));
  const int w = window > 0 ? std::min(window, n - 1) : n - 1;
  const int rounds = (n - 1 + w - 1) / w;
  switch (algorithm) {
    case Algorithm::Ring:
      if (kind == Kind::Broadcast || kind == Kind::Reduce) return S / B + (n - 1) * a;
      return ring_time(kind, n, S, B, a);
    case Algorithm::Tree: return 2 * S / B + 2 * tree_depth(n) * a;
    case Algorithm::HalvingDoubling:
      return kind == Kind::AllReduce ? 2 * share / B + 2 * log2n * a : share / B + log2n * a;
    case Algorithm::Direct:
      switch (kind) {
        case Kind::AllReduce: return 2 * share / B + 2 * rounds * a;
        case Kind::Broadcast:
        case Kind::Reduce: return (n - 1) * S / B + rounds * a;
        case Kind::SendRecv: return S / B + a;
        default: return share / B + rounds * a;
      }
    case Algorithm::InSwitch: return S / B + 2 * a;
    default: throw std::invalid_argument("alpha_beta_time: not a flat algorithm");
  }
}

double hierarchical_time(int k, int m, double S, double intra_bw, double intra_alpha, double inter_bw,
                         double inter_alpha) {
  return ring_time(Kind::ReduceScatter, k, S, intra_bw, intra_alpha) +
         ring_time(Kind::AllReduce, m, S / k, inter_bw, inter_alpha) +
         ring_time(Kind::AllGather, k, S, intra_bw, intra_alpha);
}

}  // namespace llmsim::collectives
