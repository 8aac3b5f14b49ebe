// Recursive halving reduce-scatter and recursive doubling all-gather (Rabenseifner's all-reduce; Thakur,
// Rabenseifner & Gropp 2005, Sec. 4.5): log2(n) pairwise exchanges each, halving / doubling the bytes.
#include "llmsim/collectives/algorithms.hpp"

namespace llmsim::collectives {

namespace {
Step exchange(int n, int distance, double bytes) {
  Step s;
  for (int i = 0; i < n; ++i) s.transfers.push_back({i, i ^ distance, bytes});
  return s;
}
}  // namespace

std::vector<Step> halving_doubling_plan(Kind kind, int n, double bytes) {
  std::vector<Step> steps;
  if (kind != Kind::AllGather)  // reduce-scatter: distance n/2, n/4, ... with S/2, S/4, ...
    for (int d = n / 2; d >= 1; d /= 2) steps.push_back(exchange(n, d, bytes * d / n));
  if (kind != Kind::ReduceScatter)  // all-gather: distance 1, 2, ... with S/n, 2S/n, ...
    for (int d = 1; d < n; d *= 2) steps.push_back(exchange(n, d, bytes * d / n));
  return steps;
}

}  // namespace llmsim::collectives
