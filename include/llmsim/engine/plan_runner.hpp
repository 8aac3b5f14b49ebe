#pragma once
// Executes a collective Plan (collectives/collective.hpp) on SimGrid from inside an actor: for each step, one
// flow per transfer between the endpoint hosts (bytes x `scale`, the lane width), wait for all, then sleep the
// step's extra latency hops times the largest route latency of the step.
#include <simgrid/s4u.hpp>

#include <vector>

#include "llmsim/collectives/auto_select.hpp"

namespace llmsim::engine {

/// The same plan run by `lanes` parallel copies: endpoints are laid out lane after lane, `per_lane` each.
collectives::Plan replicate_lanes(const collectives::Plan& plan, int per_lane, int lanes);

/// Returns the number of flows started. `latency_hops` false skips the extra latency hops (packet-level models
/// such as ns-3 cannot report a route's latency and model per-hop latency themselves). `message_overhead` [s]
/// is paid once per step before its flows start (software cost of posting a message, network.message_overhead_us).
long long run_plan(const collectives::Plan& plan, const std::vector<simgrid::s4u::Host*>& endpoints, double scale,
                   bool latency_hops = true, double message_overhead = 0);

/// Link parameters of a group for the "auto" choice, read from the platform's routes: the first pair of members
/// on one node and the first pair on different nodes (bottleneck bandwidth x `scale`, route latency).
collectives::LinkParams link_params(const std::vector<simgrid::s4u::Host*>& members,
                                    const std::vector<int>& node_of_member, double scale);

}  // namespace llmsim::engine
