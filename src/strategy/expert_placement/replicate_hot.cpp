// replicate-hot (DeepSeek-V3's redundant experts, the EPLB idea): each device has `extra_slots` slots beyond its
// experts/devices. The extra replicas go one at a time to the expert with the highest load per replica
// (frequency / replicas); then all replicas, each carrying frequency / replicas, are packed greedily —
// heaviest first onto the least-loaded device with a free slot that does not already hold that expert. A token
// uses a replica on its own device if there is one, else the replicas take turns (moe/traffic.hpp).
#include <algorithm>
#include <numeric>
#include <string>

#include "llmsim/strategy/expert_placement.hpp"
#include "llmsim/util/error.hpp"

namespace llmsim::strategy {
namespace {

class ReplicateHot final : public ExpertPlacementStrategy {
 public:
  explicit ReplicateHot(int extra) : extra_(extra) {}
  ExpertPlacement place(const ExpertStats& st, int devices) const override {
    const int E = st.experts, slots = E / devices + extra_;
    std::vector<int> replicas(E, 1);
    for (int r = 0; r < devices * extra_ && r < E * (devices - 1); ++r) {
      int best = -1;
      for (int e = 0; e < E; ++e)
        if (replicas[e] < devices && (best < 0 || st.frequency[e] / replicas[e] > st.frequency[best] / replicas[best])) best = e;
      ++replicas[best];
    }
    struct Item {
      int expert;
      double load;
    };
    std::vector<Item> items;
    for (int e = 0; e < E; ++e)
      for (int r = 0; r < replicas[e]; ++r) items.push_back({e, st.frequency[e] / replicas[e]});
    std::stable_sort(items.begin(), items.end(), [](const Item& a, const Item& b) { return a.load > b.load; });
    ExpertPlacement p;
    p.devices = devices;
    p.hosts.resize(E);
    std::vector<double> load(devices, 0);
    std::vector<int> used(devices, 0);
    for (const auto& item : items) {
      int best = -1;
      for (int d = 0; d < devices; ++d) {
        const auto& h = p.hosts[item.expert];
        if (used[d] >= slots || std::find(h.begin(), h.end(), d) != h.end()) continue;
        if (best < 0 || load[d] < load[best]) best = d;
      }
      p.hosts[item.expert].push_back(best);
      load[best] += item.load;
      ++used[best];
    }
    return p;
  }

 private:
  int extra_;
};

const scenario::FieldList kParams = {
    scenario::Field::integer("extra_slots", "expert replicas each device can hold beyond its experts/devices")
        .at_least(1).at_most(1024).with_default(1)};

LLMSIM_REGISTER(ExpertPlacementStrategy, "replicate-hot",
                "extra replicas for the experts with the highest load per replica, all replicas packed greedily "
                "(EPLB-like)",
                kParams, [](const scenario::Params& p, const scenario::Scenario& s) {
                  // A device holds each expert at most once: beyond experts - experts/ep, slots stay empty. With
                  // ep 1 every expert is on the one device and no placement moves anything.
                  const int extra = p.integer("extra_slots"), experts = s.model.moe.experts, ep = s.parallelism.ep;
                  const int own = experts / std::max(1, ep), most = experts - own;
                  if (experts > 0 && ep > 1 && extra > most)
                    throw ScenarioError("/strategies/expert_placement/extra_slots",
                                        std::to_string(extra) + " replicas per device, but a device holds at most " +
                                            std::to_string(most) + " more (each of the " + std::to_string(experts) +
                                            " experts once, " + std::to_string(own) + " its own): 1-" +
                                            std::to_string(most));
                  return std::make_unique<ReplicateHot>(extra);
                });

}  // namespace
}  // namespace llmsim::strategy
