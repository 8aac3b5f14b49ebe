#include "llmsim/collectives/aggregate.hpp"

#include <algorithm>
#include <map>
#include <optional>

namespace llmsim::collectives {

namespace {

/// Bytes below which a member's remaining bytes count as none (rounding of the re-paired sums).
double tolerance(const std::vector<double>& out_bytes) {
  double total = 0;
  for (double b : out_bytes) total += b;
  return 1e-12 * total;
}

/// North-west corner rule: `out_bytes` of `sources` against `in_bytes` of `sinks` (equal totals), in order;
/// where the corner would pair members that `apart` forbids, the source takes the next allowed sink instead.
/// Empty when a source is left with only forbidden sinks.
template <class Apart>
std::optional<std::vector<Transfer>> north_west(const std::vector<int>& sources, std::vector<double> out_bytes,
                                                const std::vector<int>& sinks, std::vector<double> in_bytes,
                                                Apart apart) {
  std::vector<Transfer> flows;
  const double eps = tolerance(out_bytes);
  size_t first = 0;  // sinks before it are full
  for (size_t s = 0; s < sources.size(); ++s) {
    size_t d = first;
    while (out_bytes[s] > eps) {
      while (d < sinks.size() && (in_bytes[d] <= eps || !apart(sources[s], sinks[d]))) ++d;
      if (d == sinks.size()) return std::nullopt;
      const double b = std::min(out_bytes[s], in_bytes[d]);
      flows.push_back({sources[s], sinks[d], b});
      out_bytes[s] -= b;
      in_bytes[d] -= b;
    }
    while (first < sinks.size() && in_bytes[first] <= eps) ++first;
  }
  return flows;
}

/// Largest first: the source with the most bytes left sends to the allowed sink with the most room left, until
/// one of them is done (each round finishes a source or a sink: at most 2 n - 1 flows). For skewed exchanges
/// where the shifted corner strands a member with only itself (or its own node) left to send to.
template <class Apart>
std::optional<std::vector<Transfer>> largest_first(const std::vector<int>& members, std::vector<double> out_bytes,
                                                   std::vector<double> in_bytes, Apart apart) {
  std::vector<Transfer> flows;
  const double eps = tolerance(out_bytes);
  const size_t n = members.size();
  while (true) {
    const size_t s = static_cast<size_t>(std::max_element(out_bytes.begin(), out_bytes.end()) - out_bytes.begin());
    if (out_bytes[s] <= eps) return flows;
    size_t d = n;
    for (size_t j = 0; j < n; ++j)
      if (in_bytes[j] > eps && apart(members[s], members[j]) && (d == n || in_bytes[j] > in_bytes[d])) d = j;
    if (d == n) return std::nullopt;
    const double b = std::min(out_bytes[s], in_bytes[d]);
    flows.push_back({members[s], members[d], b});
    out_bytes[s] -= b;
    in_bytes[d] -= b;
  }
}

/// Re-pairs `transfers` (all of one class) over `members` (in order) against the members rotated by `shift`,
/// 2 `shift`, ... (the first rotation that strands no member; skewed exchanges may need a later one), else
/// largest first; unchanged when none works or the flows would not shrink.
template <class Apart>
std::vector<Transfer> repair(const std::vector<Transfer>& transfers, const std::vector<int>& members, size_t shift,
                             Apart apart) {
  if (members.size() < 2 || transfers.size() <= members.size()) return transfers;
  std::map<int, double> out, in;
  for (const auto& t : transfers) out[t.src] += t.bytes, in[t.dst] += t.bytes;
  std::vector<double> out_bytes, in_bytes;
  for (int m : members) out_bytes.push_back(out[m]), in_bytes.push_back(in[m]);
  std::optional<std::vector<Transfer>> flows;
  for (size_t r = shift; !flows && r < members.size(); r += shift) {
    std::vector<int> sinks(members.begin() + static_cast<long>(r), members.end());
    sinks.insert(sinks.end(), members.begin(), members.begin() + static_cast<long>(r));
    std::vector<double> sink_bytes(in_bytes.begin() + static_cast<long>(r), in_bytes.end());
    sink_bytes.insert(sink_bytes.end(), in_bytes.begin(), in_bytes.begin() + static_cast<long>(r));
    flows = north_west(members, out_bytes, sinks, sink_bytes, apart);
  }
  if (!flows) flows = largest_first(members, out_bytes, in_bytes, apart);
  return flows && flows->size() < transfers.size() ? *flows : transfers;
}

Step aggregate_step(const Step& step, const GroupLayout& layout) {
  const int n = layout.size();
  const auto& node = layout.node_of_member;
  Step out;
  out.extra_latency_hops = step.extra_latency_hops;
  std::map<int, std::vector<Transfer>> intra;  // by node
  std::vector<Transfer> inter;
  for (const auto& t : step.transfers) {
    if (t.src >= n || t.dst >= n) out.transfers.push_back(t);  // a switch endpoint
    else if (node[t.src] == node[t.dst]) intra[node[t.src]].push_back(t);
    else inter.push_back(t);
  }
  std::vector<int> by_node(n);
  for (int i = 0; i < n; ++i) by_node[i] = i;
  std::stable_sort(by_node.begin(), by_node.end(), [&](int a, int b) { return node[a] < node[b]; });
  for (const auto& [nd, transfers] : intra) {
    std::vector<int> local;
    for (int m : by_node)
      if (node[m] == nd) local.push_back(m);
    const auto flows = repair(transfers, local, 1, [](int a, int b) { return a != b; });
    out.transfers.insert(out.transfers.end(), flows.begin(), flows.end());
  }
  const size_t first_node = static_cast<size_t>(std::count(node.begin(), node.end(), node[by_node.front()]));
  const auto flows = repair(inter, by_node, first_node, [&](int a, int b) { return node[a] != node[b]; });
  out.transfers.insert(out.transfers.end(), flows.begin(), flows.end());
  return out;
}

}  // namespace

Plan aggregate_flows(const Plan& plan, const GroupLayout& layout) {
  if (plan.algorithm != Algorithm::Direct) return plan;
  Plan out;
  out.algorithm = plan.algorithm;
  for (const auto& step : plan.steps) out.steps.push_back(aggregate_step(step, layout));
  return out;
}

}  // namespace llmsim::collectives
