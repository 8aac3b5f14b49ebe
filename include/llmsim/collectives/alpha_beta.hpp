#pragma once
// Alpha-beta (Hockney) times of the collective algorithms on uncongested links, used by the "auto" choice and
// checked against the simulated plans by the tests. n ranks, S bytes per rank, B bandwidth per direction of a
// rank's bottleneck link, alpha latency per hop (Thakur, Rabenseifner & Gropp 2005; NCCL's tuning model).
//   ring            AR 2(n-1)/n S/B + 2(n-1) a      RS, AG (n-1)/n S/B + (n-1) a     BC, R  S/B + (n-1) a
//   tree (double    AR 2 S/B + 2 d a, d = floor(log2 n) (each rank receives S/2 from each of two children in
//    binary)           one tree and is a leaf of the other)                           BC, R  S/B + d a
//   halving-doubl.  AR 2(n-1)/n S/B + 2 log2(n) a   RS, AG (n-1)/n S/B + log2(n) a
//   direct (window  AR 2(n-1)/n S/B + 2 w' a        RS, AG, A2A (n-1)/n S/B + w' a, w' = ceil((n-1)/window)
//    w)                                              BC, R (n-1) S/B + a (the root's link carries every copy)
//   in-switch       AR S/B + 2 a (each rank sends S up and receives S down at the same time)
//   hierarchical    intra-node RS + inter-node AR of S/k + intra-node AG with their own B and alpha (k ranks
//                   per node): see hierarchical_time.
#include "llmsim/collectives/collective.hpp"

namespace llmsim::collectives {

/// Time of a flat algorithm (not Hierarchical, not Auto); `window` as in GroupLayout (0 = n-1).
double alpha_beta_time(Kind kind, Algorithm algorithm, int n, double bytes, double bandwidth, double alpha,
                       int window = 0);

/// Hierarchical all-reduce over m nodes of k ranks: ring reduce-scatter and all-gather inside a node
/// (intra_bw, intra_alpha) around a ring all-reduce of S/k across nodes (inter_bw, inter_alpha).
double hierarchical_time(int k, int m, double bytes, double intra_bw, double intra_alpha, double inter_bw,
                         double inter_alpha);

/// floor(log2 n) for n >= 1.
int tree_depth(int n);

}  // namespace llmsim::collectives
