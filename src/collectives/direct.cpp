// Direct (all-pairs) algorithms: every member exchanges with every peer, in rounds of `window` peers at
// offsets 1..n-1 (round r: offsets r*w+1 .. (r+1)*w). All-reduce = direct reduce-scatter + direct all-gather;
// broadcast / reduce: the root sends to / receives from every peer; send/recv: member 0 to member 1.
#include <algorithm>

#include "llmsim/collectives/algorithms.hpp"

namespace llmsim::collectives {

namespace {
/// Rounds of transfers i -> (i + offset) mod n with bytes_of(i, j).
template <class Bytes>
std::vector<Step> all_pairs(int n, int window, Bytes bytes_of) {
  const int w = window > 0 ? std::min(window, n - 1) : n - 1;
  std::vector<Step> steps;
  for (int first = 1; first < n; first += w) {
    Step s;
    for (int off = first; off < std::min(n, first + w); ++off)
      for (int i = 0; i < n; ++i) {
        const int j = (i + off) % n;
        const double b = bytes_of(i, j);
        if (b > 0) s.transfers.push_back({i, j, b});
      }
    steps.push_back(s);
  }
  return steps;
}
}  // namespace

std::vector<Step> direct_plan(Kind kind, int n, double bytes, int window, const std::vector<double>& matrix) {
  const double share = bytes / n;
  auto uniform = [share](int, int) { return share; };
  switch (kind) {
    case Kind::AllReduce: {
      auto steps = all_pairs(n, window, uniform);
      auto gather = all_pairs(n, window, uniform);
      steps.insert(steps.end(), gather.begin(), gather.end());
      return steps;
    }
    case Kind::ReduceScatter:
    case Kind::AllGather:
    case Kind::AllToAll: return all_pairs(n, window, uniform);
    case Kind::AllToAllV: return all_pairs(n, window, [&](int i, int j) { return matrix[i * n + j]; });
    case Kind::Broadcast: return all_pairs(n, window, [bytes](int i, int) { return i == 0 ? bytes : 0.0; });
    case Kind::Reduce: return all_pairs(n, window, [bytes](int, int j) { return j == 0 ? bytes : 0.0; });
    case Kind::SendRecv: return {Step{{{0, 1, bytes}}, 0}};
  }
  return {};
}

}  // namespace llmsim::collectives
