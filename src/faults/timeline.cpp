#include "llmsim/faults/timeline.hpp"

#include <simgrid/kernel/ProfileBuilder.hpp>
#include <simgrid/s4u.hpp>

#include <algorithm>
#include <iomanip>
#include <cmath>
#include <limits>
#include <map>
#include <sstream>

#include "llmsim/engine/simulation.hpp"

namespace sg4 = simgrid::s4u;

namespace llmsim::faults {
namespace {

constexpr double kLinkRate = 1e6;  ///< [bytes/s] of a node's link in the timeline platform: 1 byte per microsecond

class Controller {
 public:
  Controller(const scenario::Scenario& s, const std::vector<Failure>& failures, const strategy::FaultTolerance& ft,
             const strategy::JobCosts& c, double mtbf, std::vector<sg4::Host*> hosts, std::vector<sg4::Link*> nics,
             sg4::Host* self)
      : ft_(ft), c_(c), healthy_(ft.iteration(c, {})), horizon_(s.faults.horizon), hosts_(std::move(hosts)),
        nics_(std::move(nics)), self_(self) {
    failures_of_node_.resize(hosts_.size());
    next_failure_.assign(hosts_.size(), 0);
    for (const auto& f : failures) failures_of_node_[f.node].push_back(f);
    const double interval = ft.checkpoint_interval(c, mtbf);
    checkpoint_every_ = interval > 0 ? std::max(1.0, std::round(interval / c.iteration)) : 0;
    write_ = ft.checkpoint_write(c);
  }

  void run() {
    double stall_until = 0;
    std::string stall_kind;
    while (now() < horizon_ && r_.stopped_at < 0) {
      const double t0 = now();
      const bool stalled = stall_until > t0;
      const double T = stalled ? 0 : ft_.iteration(c_, down_);
      double end = std::min(horizon_, next_repair());
      if (stalled) end = std::min(end, stall_until);
      if (T > 0 && checkpoint_every_ > 0) end = std::min(end, t0 + (checkpoint_every_ - since_checkpoint_) * T);
      const int failed = segment(end);  // -1: reached `end`
      const double t1 = now();
      if (stalled) {
        r_.events.push_back({stall_kind, t0, t1, -1});
        (stall_kind == "checkpoint" ? writing_ : r_.stall_time) += t1 - t0;
        if (stall_kind == "checkpoint" && failed < 0 && t1 >= stall_until) {  // written
          r_.checkpoint_time += writing_, writing_ = 0;
          since_checkpoint_ = 0, ++r_.checkpoints;
        }
      } else if (T > 0) {
        advance(t0, t1, T);
      } else {
        r_.wait_time += t1 - t0;
        r_.events.push_back({"wait", t0, t1, -1});
      }
      if (failed >= 0) {
        if (stall_kind == "checkpoint") abandon_write();
        stall_until = stalled && stall_kind != "checkpoint" ? stall_until : 0;
      } else {  // a repair, a checkpoint due, or the horizon
        if (stalled && t1 >= stall_until) stall_until = 0;
        for (int n : std::set<int>(down_))
          if (up_at_[n] <= t1 + 1e-9) {
            down_.erase(n);
            r_.events.push_back({"repair", t1, t1, n});
            const double stall = ft_.repair_stall(c_, down_);
            if (stall > 0) {
              if (stall_kind == "checkpoint") abandon_write();
              stall_until = std::max(stall_until, t1 + stall), stall_kind = "stall";
            }
          }
      }
      // The failure that ended the segment with every other one at the same instant (incl. a node failing again
      // the instant it came back).
      if (const auto now_failed = newly_failed(); failed >= 0 || !now_failed.empty()) {
        if (stall_kind == "checkpoint") abandon_write();
        for (int n : now_failed) stall_until = on_failure(n, stall_until);
        stall_kind = "stall";
        continue;
      }
      if (!stalled && T > 0 && checkpoint_every_ > 0 && since_checkpoint_ >= checkpoint_every_ - 1e-6) {
        stall_until = t1 + write_;
        stall_kind = "checkpoint";
      }
    }
    r_.checkpoint_time += writing_;  // a write the horizon cut: time spent writing, not a checkpoint
    if (r_.stopped_at >= 0) r_.events.push_back({"stop", r_.stopped_at, r_.stopped_at, -1});
  }

  TimelineResult result() { return std::move(r_); }

 private:
  static double now() { return sg4::Engine::get_clock(); }

  /// Nodes whose host or link is off but that are not known to be down (failures at the same instant as the one
  /// that ended the segment) — with a failure ticket started by now: a node off only because its repair at this
  /// very instant has not been applied to the platform yet is not one.
  std::vector<int> newly_failed() const {
    std::vector<int> out;
    const double t = now();
    for (size_t n = 0; n < hosts_.size(); ++n) {
      const auto& mine = failures_of_node_[n];
      const bool ticket = next_failure_[n] < mine.size() && mine[next_failure_[n]].time <= t + 1e-5;
      if (!down_.count(static_cast<int>(n)) && ticket && (!hosts_[n]->is_on() || !nics_[n]->is_on()))
        out.push_back(static_cast<int>(n));
    }
    return out;
  }

  double next_repair() const {
    double t = std::numeric_limits<double>::infinity();
    for (int n : down_) t = std::min(t, up_at_.at(n));
    return t;
  }

  /// Every up node works until `end`: a transfer from the node to the controller over the node's link
  /// (kLinkRate bytes/s, so it lasts the segment) that fails with the node's host or its link. Returns the node
  /// that failed first, or -1.
  int segment(double end) {
    std::vector<sg4::CommPtr> work;
    std::vector<int> owner;
    const auto bytes = static_cast<uint64_t>(std::llround((end - now()) * kLinkRate));
    if (bytes == 0) {  // shorter than the links' resolution (1 us): no failure is looked for
      sg4::this_actor::sleep_until(end);
      return -1;
    }
    for (size_t n = 0; n < hosts_.size(); ++n)
      if (hosts_[n]->is_on() && nics_[n]->is_on()) {
        work.push_back(sg4::Comm::sendto_async(hosts_[n], self_, bytes));
        owner.push_back(static_cast<int>(n));
      }
    int failed = -1;
    try {
      if (work.empty()) sg4::this_actor::sleep_until(end);
      else sg4::Comm::wait_any(work);
    } catch (const simgrid::NetworkFailureException&) {
      for (size_t i = 0; i < work.size(); ++i)
        if (work[i]->get_state() == sg4::Activity::State::FAILED) failed = owner[i];
    }
    for (auto& w : work)
      if (w->get_state() == sg4::Activity::State::STARTED) w->cancel();
    // The transfer's whole bytes end up to half a microsecond short of `end`: land on it, or the rest would be a
    // segment of its own (a second checkpoint write of 0.3 us).
    if (failed < 0 && now() < end) sg4::this_actor::sleep_until(end);
    return failed;
  }

  void advance(double t0, double t1, double T) {
    const double done = (t1 - t0) / T;
    r_.computed_iterations += done;
    since_checkpoint_ += done;
    r_.running.push_back({t0, t1, T, static_cast<int>(down_.size())});
    if (T > healthy_ * (1 + 1e-12)) r_.degraded_time += t1 - t0;  // slower than the module's failure-free iteration
  }

  /// Returns until when training stalls.
  double on_failure(int node, double current_stall) {
    const double t = now();
    ++r_.failures;
    down_.insert(node);
    up_at_[node] = t;  // the repair ticket of the failure that just happened: the node's last one started by now
    auto& next = next_failure_[node];
    const auto& mine = failures_of_node_[node];
    while (next < mine.size() && mine[next].time <= t + 1e-5) up_at_[node] = mine[next].time + mine[next].duration, ++next;
    r_.events.push_back({"failure", t, t, node});
    const auto reaction = ft_.on_failure(c_, down_);
    const double in_flight = since_checkpoint_ - std::floor(since_checkpoint_ + 1e-9);
    if (reaction.stop) {
      r_.stopped_at = t;
      r_.lost_iterations += in_flight;
      return 0;
    }
    if (reaction.rollback) {
      r_.lost_iterations += since_checkpoint_;
      since_checkpoint_ = 0;
    } else if (!reaction.keeps_in_flight) {
      r_.lost_iterations += in_flight;
      since_checkpoint_ -= in_flight;
    }
    return std::max(current_stall, t + reaction.stall);
  }

  const strategy::FaultTolerance& ft_;
  const strategy::JobCosts& c_;
  double healthy_;  // [s] the module's iteration with every node up
  double horizon_;
  std::vector<sg4::Host*> hosts_;
  std::vector<sg4::Link*> nics_;
  sg4::Host* self_;
  double checkpoint_every_ = 0, write_ = 0;  // [iterations], [s]
  double since_checkpoint_ = 0;              // iterations since the last checkpoint (all, without checkpoints)
  double writing_ = 0;                       // [s] spent on the checkpoint write under way

  /// The write under way is given up (a failure, or a repair's stall, takes its place): its time was a stall.
  void abandon_write() { r_.stall_time += writing_, writing_ = 0; }
  std::set<int> down_;
  std::map<int, double> up_at_;
  std::vector<std::vector<Failure>> failures_of_node_;  // in time order
  std::vector<size_t> next_failure_;                    // per node: its first failure not yet seen
  TimelineResult r_;
};

}  // namespace

TimelineResult run_timeline(const scenario::Scenario& s, const std::vector<Failure>& failures,
                            const strategy::FaultTolerance& ft, const strategy::JobCosts& costs, double cluster_mtbf) {
  const auto engine = engine::make_engine("CM02");  // plain max-min: a transfer lasts bytes / rate exactly
  auto* zone = sg4::create_full_zone("fault-timeline");
  auto* controller_host = zone->create_host("controller", 1.0);
  std::vector<sg4::Host*> hosts;
  std::vector<sg4::Link*> nics;
  std::map<std::pair<int, bool>, std::ostringstream> profiles;  // (node, nic) -> "time state" lines
  for (const auto& f : failures)
    profiles[{f.node, f.nic}] << std::setprecision(17) << f.time << " 0\n" << f.time + f.duration << " 1\n";
  auto profile = [&](int n, bool nic) {
    const std::string name = (nic ? "nic-failures-" : "failures-") + std::to_string(n);
    return simgrid::kernel::profile::ProfileBuilder::from_string(name, profiles[{n, nic}].str(), -1);
  };
  for (int n = 0; n < s.cluster.nodes; ++n) {
    hosts.push_back(zone->create_host("node-" + std::to_string(n), 1.0));
    nics.push_back(zone->create_link("nic-" + std::to_string(n), kLinkRate)
                       ->set_latency(0)
                       ->set_sharing_policy(sg4::Link::SharingPolicy::FATPIPE));
    if (profiles.count({n, false})) hosts.back()->set_state_profile(profile(n, false));
    if (profiles.count({n, true})) nics.back()->set_state_profile(profile(n, true));
    zone->add_route(hosts.back()->get_netpoint(), controller_host->get_netpoint(), nullptr, nullptr,
                    {sg4::LinkInRoute(nics.back())}, true);
  }
  zone->seal();
  Controller controller(s, failures, ft, costs, cluster_mtbf, hosts, nics, controller_host);
  sg4::Actor::create("controller", controller_host, [&controller]() { controller.run(); });
  engine->run_until(s.faults.horizon + 1);  // the last segment may end a microsecond late (byte rounding)
  return controller.result();
}

}  // namespace llmsim::faults
