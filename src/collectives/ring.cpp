#include "llmsim/collectives/ring.hpp"

#include <cstddef>

#include "llmsim/collectives/algorithms.hpp"

using std::size_t;

namespace llmsim::collectives {

double ring_edge_bytes(Kind k, int n, double bytes) {
  if (n <= 1) return 0;
  const double share = static_cast<double>(n - 1) / n * bytes;
  return k == Kind::AllReduce ? 2 * share : share;
}

int ring_steps(Kind k, int n) {
  if (n <= 1) return 0;
  return k == Kind::AllReduce ? 2 * (n - 1) : n - 1;
}

double ring_time(Kind k, int n, double bytes, double bandwidth, double alpha) {
  return ring_edge_bytes(k, n, bytes) / bandwidth + ring_steps(k, n) * alpha;
}

std::vector<std::vector<int>> ring_channels(const std::vector<int>& node_of_member) {
  const int n = static_cast<int>(node_of_member.size());
  std::vector<std::vector<int>> per_node;  // consecutive runs of members on one node
  for (int i = 0; i < n; ++i) {
    if (i == 0 || node_of_member[i] != node_of_member[i - 1]) per_node.emplace_back();
    per_node.back().push_back(i);
  }
  const size_t k = per_node.front().size();
  bool regular = true;
  for (const auto& run : per_node) regular = regular && run.size() == k;
  for (size_t a = 0; regular && a < per_node.size(); ++a)
    for (size_t b = a + 1; b < per_node.size(); ++b)
      regular = regular && node_of_member[per_node[a][0]] != node_of_member[per_node[b][0]];
  std::vector<std::vector<int>> channels;
  if (!regular || k == 1 || per_node.size() == 1) {
    channels.emplace_back();
    for (int i = 0; i < n; ++i) channels.back().push_back(i);
    return channels;
  }
  for (size_t c = 0; c < k; ++c) {
    channels.emplace_back();
    for (const auto& run : per_node)
      for (size_t j = 1; j <= k; ++j) channels.back().push_back(run[(c + j) % k]);
  }
  return channels;
}

std::vector<Step> ring_steps_plan(Kind kind, const GroupLayout& layout, double bytes) {
  const int n = layout.size(), logical = layout.represents();
  Step step;
  if (kind == Kind::Broadcast || kind == Kind::Reduce) {  // pipelined chain 0 -> 1 -> ... -> n-1 (reverse for reduce)
    for (int i = 0; i + 1 < n; ++i)
      step.transfers.push_back(kind == Kind::Broadcast ? Transfer{i, i + 1, bytes} : Transfer{i + 1, i, bytes});
    step.extra_latency_hops = logical - 2;
    return {step};
  }
  std::vector<std::vector<int>> channels(1);
  for (int i = 0; i < n; ++i) channels[0].push_back(i);
  if (!layout.point_to_point) channels = ring_channels(layout.node_of_member);
  const double edge = ring_edge_bytes(kind, logical, bytes) / channels.size();
  for (const auto& ring : channels)
    for (int i = 0; i < n; ++i) step.transfers.push_back({ring[i], ring[(i + 1) % n], edge});
  step.extra_latency_hops = ring_steps(kind, logical) - 1;
  return {step};
}

}  // namespace llmsim::collectives
