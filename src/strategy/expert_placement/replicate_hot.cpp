// replicate-hot: load-balanced placement, then the hottest experts get one extra replica each, as long as
// devices have free extra slots (extra_slots per device), each on the device with the least load at that point;
// an expert's load is shared evenly by its replicas (DeepSeek-V3's redundant experts / EPLB idea).
#include <algorithm>
#include <numeric>

#include "llmsim/strategy/expert_placement.hpp"

namespace llmsim::strategy {
namespace {

class ReplicateHot final : public ExpertPlacementStrategy {
 public:
  explicit ReplicateHot(int extra) : extra_(extra) {}
  ExpertPlacement place(const ExpertStats& st, int devices) const override {
    const int E = st.experts;
    const auto device = greedy_balance(st.frequency, devices, E / devices);
    ExpertPlacement p;
    p.devices = devices;
    p.hosts.resize(E);
    for (int e = 0; e < E; ++e) p.hosts[e] = {device[e]};
    std::vector<int> order(E);
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return st.frequency[a] > st.frequency[b]; });
    std::vector<int> free(devices, extra_);
    auto load_of = [&](int d) {
      double l = 0;
      for (int e = 0; e < E; ++e)
        if (std::find(p.hosts[e].begin(), p.hosts[e].end(), d) != p.hosts[e].end()) l += st.frequency[e] / p.hosts[e].size();
      return l;
    };
    for (int e : order) {
      int best = -1;
      double best_load = 0;
      for (int d = 0; d < devices; ++d) {
        if (free[d] == 0 || std::find(p.hosts[e].begin(), p.hosts[e].end(), d) != p.hosts[e].end()) continue;
        const double l = load_of(d);
        if (best < 0 || l < best_load) best = d, best_load = l;
      }
      if (best < 0) continue;  // no free slot on a device without this expert
      p.hosts[e].push_back(best);
      --free[best];
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
                "load-balanced plus extra replicas of the hottest experts on the least-loaded devices (EPLB-like)",
                kParams, [](const nlohmann::json& p, const scenario::Scenario&) {
                  return std::make_unique<ReplicateHot>(p.at("extra_slots").get<int>());
                });

}  // namespace
}  // namespace llmsim::strategy
