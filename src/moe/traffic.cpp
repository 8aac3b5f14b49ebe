#include "llmsim/moe/traffic.hpp"

#include <algorithm>
#include <map>
#include <numeric>
#include <stdexcept>
#include <utility>

namespace llmsim::moe {

CopyRule CopyRule::named(const std::string& name, std::vector<int> node_of) {
  if (name == "per-expert") return {Kind::PerExpert, {}};
  if (name == "per-device") return {Kind::PerDevice, {}};
  if (name == "per-node") return {Kind::PerNode, std::move(node_of)};
  throw std::invalid_argument("unknown token copy rule '" + name + "'");
}

namespace {

/// Where a per-node copy from a device crosses into another node: the device of that node whose position among
/// the node's devices is the sender's (modulo the node's device count).
class Relays {
 public:
  Relays(const std::vector<int>& node_of, int devices) : node_(devices) {
    std::map<int, std::vector<int>> members;
    for (int d = 0; d < devices; ++d) {
      node_[d] = node_of.empty() ? d : node_of.at(d);
      position_.push_back(static_cast<int>(members[node_[d]].size()));
      members[node_[d]].push_back(d);
    }
    for (auto& [node, list] : members) members_[node] = std::move(list);
  }
  int node(int d) const { return node_[d]; }
  int relay(int src, int node) const {
    const auto& list = members_.at(node);
    return list[position_[src] % list.size()];
  }

 private:
  std::vector<int> node_, position_;
  std::map<int, std::vector<int>> members_;
};

/// Adds one token's copies from `src` to its distinct destination devices `dest` (PerDevice, PerNode).
void add_token_copies(const CopyRule& rule, const Relays& relays, int src, const std::vector<int>& dest, double scale,
                      int D, std::vector<double>& copies) {
  std::vector<int> nodes_sent;
  for (int d : dest) {
    if (rule.kind == CopyRule::Kind::PerDevice || relays.node(d) == relays.node(src)) {
      copies[static_cast<size_t>(src) * D + d] += scale;
      continue;
    }
    const int r = relays.relay(src, relays.node(d));
    if (std::find(nodes_sent.begin(), nodes_sent.end(), relays.node(d)) == nodes_sent.end()) {
      nodes_sent.push_back(relays.node(d));
      copies[static_cast<size_t>(src) * D + r] += scale;
    }
    if (d != r) copies[static_cast<size_t>(r) * D + d] += scale;
  }
}

}  // namespace

double LayerTraffic::imbalance() const {
  const double total = std::accumulate(pairs_on.begin(), pairs_on.end(), 0.0);
  if (total <= 0) return 1;
  return *std::max_element(pairs_on.begin(), pairs_on.end()) / (total / devices);
}

LayerTraffic route_layer(const std::vector<RoutingSample>& per_source, const strategy::ExpertPlacement& placement,
                         int experts, const CopyRule& copies, double capacity_factor, double scale,
                         bool sources_are_devices) {
  const int D = placement.devices;
  LayerTraffic out;
  out.devices = D, out.experts = experts;
  out.copies.assign(static_cast<size_t>(D) * D, 0);
  out.pairs_on.assign(D, 0);
  out.expert_load.assign(experts, 0);
  // Slot of each (device, expert) replica.
  std::vector<std::vector<int>> slot(D, std::vector<int>(experts, -1));
  out.slot_tokens.resize(D);
  for (int d = 0; d < D; ++d) {
    const auto local = placement.experts_on(d);
    for (size_t i = 0; i < local.size(); ++i) slot[d][local[i]] = static_cast<int>(i);
    out.slot_tokens[d].assign(local.size(), 0);
  }
  double sampled = 0;
  for (const auto& r : per_source) sampled += r.tokens;
  const int k = per_source.empty() ? 0 : per_source[0].k;
  const double capacity = capacity_factor > 0 ? capacity_factor * sampled * k / experts : -1;
  std::vector<double> accepted(experts, 0);
  std::vector<int> turn(experts, 0), dest;
  const Relays relays(copies.node_of, D);
  for (int src = 0; src < static_cast<int>(per_source.size()); ++src) {
    const auto& r = per_source[src];
    for (int t = 0; t < r.tokens; ++t) {
      dest.clear();
      for (int c = 0; c < r.k; ++c) {
        const int e = r.experts[static_cast<size_t>(t) * r.k + c];
        if (capacity >= 0 && accepted[e] >= capacity) {
          out.dropped += scale;
          continue;
        }
        accepted[e] += 1;
        const auto& hosts = placement.hosts[e];
        const bool local = sources_are_devices && std::find(hosts.begin(), hosts.end(), src) != hosts.end();
        const int d = local ? src : hosts[turn[e]++ % hosts.size()];
        out.pairs_on[d] += scale;
        out.slot_tokens[d][slot[d][e]] += scale;
        out.expert_load[e] += scale;
        if (copies.kind == CopyRule::Kind::PerExpert) out.copies[static_cast<size_t>(src) * D + d] += scale;
        if (std::find(dest.begin(), dest.end(), d) == dest.end()) dest.push_back(d);
      }
      if (copies.kind != CopyRule::Kind::PerExpert) add_token_copies(copies, relays, src, dest, scale, D, out.copies);
      out.destinations += scale * dest.size();
      out.tokens += scale;
    }
  }
  return out;
}

strategy::ExpertStats stats_of(const std::vector<RoutingSample>& samples, int experts) {
  strategy::ExpertStats st;
  st.experts = experts;
  st.frequency.assign(experts, 0);
  st.coactivation.assign(static_cast<size_t>(experts) * experts, 0);
  for (const auto& r : samples)
    for (int t = 0; t < r.tokens; ++t) {
      const int* chosen = &r.experts[static_cast<size_t>(t) * r.k];
      for (int a = 0; a < r.k; ++a) {
        st.frequency[chosen[a]] += 1;
        for (int b = 0; b < r.k; ++b)
          if (a != b) st.coactivation[static_cast<size_t>(chosen[a]) * experts + chosen[b]] += 1;
      }
    }
  return st;
}

}  // namespace llmsim::moe
