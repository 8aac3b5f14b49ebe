#pragma once
// One SimGrid simulation: creates the engine (a process-wide singleton in SimGrid 3.32, so one Simulation per
// process), applies the network configuration, tracks every link's load and builds the cluster platform.
#include <memory>
#include <string>
#include <vector>

#include "llmsim/platform/cluster_platform.hpp"
#include "llmsim/scenario/scenario.hpp"

namespace simgrid::s4u {
class Engine;
}

namespace llmsim::engine {

/// Traffic through one link direction over the whole run.
struct LinkStat {
  std::string name;
  double bandwidth = 0;         ///< [bytes/s]
  double bytes = 0;             ///< carried [bytes]
  double mean_utilisation = 0;  ///< bytes / (bandwidth * simulated time)
  double peak_utilisation = 0;  ///< highest instantaneous load / bandwidth
};

/// SimGrid's engine (one per process) with its logging quiet and network model `network_model` (a flow model
/// without cross-traffic and TCP window, or "ns-3").
std::unique_ptr<simgrid::s4u::Engine> make_engine(const std::string& network_model);

/// Creates the engine and builds the platform of `s` as a run does (lane width tp), then drops them: the
/// platform's own checks (a SimGrid file's hosts and routes) without simulating. Once per process, like a run.
void check_platform(const scenario::Scenario& s);

class Simulation {
 public:
  /// Network model from s.network: CM02 (no TCP factors), LV08, IB or ns-3; cross-traffic and the TCP window
  /// off for the flow models. `used_nodes` as in platform::Topology::build (empty: every node).
  Simulation(const scenario::Scenario& s, int lane_width, const std::vector<bool>& used_nodes = {});
  ~Simulation();
  const platform::ClusterPlatform& platform() const { return platform_; }
  void run();
  /// False under a packet-level model (ns-3): routes cannot be queried, so collectives skip the extra latency
  /// hops, "auto" falls back to ring and there are no link statistics.
  bool flow_level() const { return flow_level_; }
  /// network.aggregate_flows where it holds (collectives/aggregate.hpp): a flow model, GPUs behind an NVSwitch
  /// and a topology whose fabric beyond the NICs never limits (Topology::fold_unit_nodes > 0).
  bool aggregate_flows() const { return aggregate_flows_; }
  /// Every link with its traffic, busiest (peak utilisation, then bytes) first; call after run().
  std::vector<LinkStat> link_stats() const;

 private:
  std::unique_ptr<simgrid::s4u::Engine> engine_;
  platform::ClusterPlatform platform_;
  bool flow_level_ = true;
  bool aggregate_flows_ = false;
};

}  // namespace llmsim::engine
