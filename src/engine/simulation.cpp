#include "llmsim/engine/simulation.hpp"

#include <simgrid/plugins/load.h>
#include <simgrid/s4u.hpp>

#include <algorithm>
#include <string>

#include "llmsim/platform/topology.hpp"
#include "llmsim/util/interrupt.hpp"

namespace sg4 = simgrid::s4u;

namespace llmsim::engine {
namespace {
// Stack of each SimGrid actor (one per GPU or replica), KiB. SimGrid's default is 8 MiB, so 512 actors reserve
// 4 GiB of address space; llmsim's handlers are shallow (a visit of one op, no recursion), and 1 MiB leaves them
// a wide margin, also under AddressSanitizer. SimGrid puts a guard page below each stack: an overflow faults.
constexpr int kActorStackKiB = 1024;
}  // namespace

std::unique_ptr<sg4::Engine> make_engine(const std::string& network_model) {
  static char name[] = "llmsim";
  static char log_flag[] = "--log=root.thres:critical";
#if defined(__SANITIZE_ADDRESS__)
  // SimGrid's default contexts switch stacks behind AddressSanitizer's back (false reports after the first
  // switch, "ASan is ignoring requested __asan_handle_no_return"); under ASan its actors run as threads, a
  // choice made before the engine creates its first actor.
  static char factory[] = "--cfg=contexts/factory:thread";
  char* argv[] = {name, log_flag, factory, nullptr};
#else
  char* argv[] = {name, log_flag, nullptr};
#endif
  int argc = static_cast<int>(sizeof argv / sizeof argv[0]) - 1;
  auto engine = std::make_unique<sg4::Engine>(&argc, argv);
  util::install_interrupt_handler();  // the engine has replaced it with its own SIGINT handler (exit 1)
  sg4::Engine::set_config("network/model:" + network_model);
  sg4::Engine::set_config("contexts/stack-size:" + std::to_string(kActorStackKiB));
  if (network_model != "ns-3") {
    sg4::Engine::set_config("network/crosstraffic:0");
    sg4::Engine::set_config("network/TCP-gamma:0");
  }
  return engine;
}

void check_platform(const scenario::Scenario& s) {
  const auto engine = make_engine(s.network.model);
  platform::build_platform(s, s.parallelism.tp);
}

Simulation::Simulation(const scenario::Scenario& s, int lane_width, const std::vector<bool>& used_nodes) {
  engine_ = make_engine(s.network.model);
  flow_level_ = s.network.model != "ns-3";
  aggregate_flows_ = flow_level_ && s.network.aggregate_flows && s.cluster.intra_node == "nvswitch" &&
                     platform::make_topology(s)->fold_unit_nodes(s.cluster) > 0;
  if (flow_level_) sg_link_load_plugin_init();
  platform_ = platform::build_platform(s, lane_width, used_nodes);
  platform_.link_statistics = platform_.link_statistics && flow_level_;
  if (platform_.link_statistics)
    for (const auto* link : engine_->get_all_links())
      if (link->get_name().rfind("__", 0) != 0) sg_link_load_track(link);  // not SimGrid's internal loopback
}

Simulation::~Simulation() = default;

void Simulation::run() { engine_->run(); }

std::vector<LinkStat> Simulation::link_stats() const {
  const double now = sg4::Engine::get_clock();
  std::vector<LinkStat> out;
  if (!platform_.link_statistics) return out;
  for (const auto* link : engine_->get_all_links()) {
    if (link->get_name().rfind("__", 0) == 0) continue;
    LinkStat st;
    st.name = link->get_name();
    st.bandwidth = link->get_bandwidth();
    st.bytes = sg_link_get_cum_load(link);
    st.mean_utilisation = now > 0 ? st.bytes / (st.bandwidth * now) : 0;
    st.peak_utilisation = sg_link_get_max_instantaneous_load(link) / st.bandwidth;
    out.push_back(st);
  }
  std::sort(out.begin(), out.end(), [](const LinkStat& a, const LinkStat& b) {
    if (a.peak_utilisation != b.peak_utilisation) return a.peak_utilisation > b.peak_utilisation;
    if (a.bytes != b.bytes) return a.bytes > b.bytes;
    return a.name < b.name;
  });
  return out;
}

}  // namespace llmsim::engine
