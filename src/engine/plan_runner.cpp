#include "llmsim/engine/plan_runner.hpp"

#include <algorithm>
#include <cmath>
#include <unordered_map>

namespace sg4 = simgrid::s4u;

namespace llmsim::engine {

namespace {
/// Bottleneck bandwidth and latency of the route a -> b.
std::pair<double, double> route(const sg4::Host* a, const sg4::Host* b) {
  std::vector<sg4::Link*> links;
  double latency = 0;
  a->route_to(b, links, &latency);
  double bw = 1e300;
  for (const auto* l : links) bw = std::min(bw, l->get_bandwidth());
  return {bw, latency};
}

/// Latency of the route a -> b, remembered: SimGrid computes a route by walking its zones on every call, and
/// the extra latency hops of every step ask for each transfer's (12% of a 2,048-GPU run's CPU before).
double route_latency(const sg4::Host* a, const sg4::Host* b) {
  static const sg4::Engine* engine = nullptr;  // routes of another engine's hosts are not these
  static std::unordered_map<const sg4::Host*, std::unordered_map<const sg4::Host*, double>> known;
  if (engine != sg4::Engine::get_instance()) {
    known.clear();
    engine = sg4::Engine::get_instance();
  }
  auto& from_a = known[a];
  auto it = from_a.find(b);
  if (it == from_a.end()) it = from_a.emplace(b, route(a, b).second).first;
  return it->second;
}
}  // namespace

collectives::Plan replicate_lanes(const collectives::Plan& plan, int per_lane, int lanes) {
  collectives::Plan out = plan;
  for (size_t s = 0; s < plan.steps.size(); ++s)
    for (int lane = 1; lane < lanes; ++lane)
      for (const auto& t : plan.steps[s].transfers)
        out.steps[s].transfers.push_back({t.src + lane * per_lane, t.dst + lane * per_lane, t.bytes});
  return out;
}

long long run_plan(const collectives::Plan& plan, const std::vector<sg4::Host*>& endpoints, double scale,
                   bool latency_hops, double message_overhead) {
  long long flows = 0;
  for (const auto& step : plan.steps) {
    if (message_overhead > 0) sg4::this_actor::sleep_for(message_overhead);
    std::vector<sg4::CommPtr> comms;
    double alpha = 0;
    for (const auto& t : step.transfers) {
      if (latency_hops && step.extra_latency_hops > 0)
        alpha = std::max(alpha, route_latency(endpoints[t.src], endpoints[t.dst]));
      // At least one byte: a share below one (a 1-byte all-reduce over 16 ranks) truncated to an empty message,
      // which SimGrid prices apart from the others (a probe saw 1 B take 7x as long as 8 B).
      const double bytes = std::max(1.0, std::ceil(t.bytes * scale));
      comms.push_back(sg4::Comm::sendto_async(endpoints[t.src], endpoints[t.dst], static_cast<uint64_t>(bytes)));
    }
    sg4::Comm::wait_all(comms);
    flows += static_cast<long long>(comms.size());
    if (step.extra_latency_hops > 0) sg4::this_actor::sleep_for(step.extra_latency_hops * alpha);
  }
  return flows;
}

collectives::LinkParams link_params(const std::vector<sg4::Host*>& members, const std::vector<int>& node_of_member,
                                    double scale) {
  collectives::LinkParams p;
  bool intra = false, inter = false;
  for (size_t i = 0; i < members.size() && !(intra && inter); ++i)
    for (size_t j = i + 1; j < members.size(); ++j) {
      const bool same = node_of_member[i] == node_of_member[j];
      if ((same && intra) || (!same && inter)) continue;
      const auto [bw, lat] = route(members[i], members[j]);
      (same ? p.intra_bandwidth : p.inter_bandwidth) = bw / scale;
      (same ? p.intra_latency : p.inter_latency) = lat;
      (same ? intra : inter) = true;
    }
  if (!intra) p.intra_bandwidth = p.inter_bandwidth, p.intra_latency = p.inter_latency;
  if (!inter) p.inter_bandwidth = p.intra_bandwidth, p.inter_latency = p.intra_latency;
  return p;
}

}  // namespace llmsim::engine
