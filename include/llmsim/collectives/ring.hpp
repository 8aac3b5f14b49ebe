#pragma once
// Ring collectives (Patarasuk & Yuan 2009; NCCL's ring algorithm). For n ranks and a buffer of S bytes per
// rank (nccl-tests' "size"), every rank sends to its successor:
//   all-reduce      2(n-1)/n * S bytes in 2(n-1) steps
//   reduce-scatter   (n-1)/n * S bytes in  (n-1) steps
//   all-gather       (n-1)/n * S bytes in  (n-1) steps
// Uncongested time = edge_bytes / B + steps * alpha, with B the per-direction link bandwidth and alpha the
// per-step latency. busbw = algbw * 2(n-1)/n (all-reduce) or (n-1)/n (the others), algbw = S / time.
#include <vector>

#include "llmsim/collectives/collective.hpp"

namespace llmsim::collectives {

/// For all-reduce, reduce-scatter and all-gather (the others: 0 / n-1 hops of a chain, see alpha_beta.hpp).
double ring_edge_bytes(Kind k, int n, double bytes);
int ring_steps(Kind k, int n);
/// Uncongested ring time [s]; 0 for n == 1.
double ring_time(Kind k, int n, double bytes, double bandwidth, double alpha);

/// NCCL-style ring channels over members listed node by node (`node_of_member[i]` = node of member i).
/// When every node holds the same number k of consecutive members, there are k channels, each carrying 1/k
/// of the data; channel c visits each node's members rotated so that it enters the node at member (c+1) mod k
/// and leaves it from member c — channels cross between nodes over different GPUs and hence NICs (NCCL
/// builds one ring per NIC the same way). Otherwise one channel in member order. Returns member indices.
std::vector<std::vector<int>> ring_channels(const std::vector<int>& node_of_member);

}  // namespace llmsim::collectives
