#include "llmsim/strategy/expert_placement.hpp"
#include "llmsim/strategy/family.hpp"

#include <algorithm>
#include <numeric>


namespace llmsim::strategy {

std::vector<int> ExpertPlacement::experts_on(int device) const {
  std::vector<int> out;
  for (int e = 0; e < static_cast<int>(hosts.size()); ++e)
    if (std::find(hosts[e].begin(), hosts[e].end(), device) != hosts[e].end()) out.push_back(e);
  return out;
}

int ExpertPlacement::max_slots() const {
  int most = 0;
  for (int d = 0; d < devices; ++d) most = std::max(most, static_cast<int>(experts_on(d).size()));
  return most;
}

std::unique_ptr<ExpertPlacementStrategy> make_expert_placement(const scenario::Scenario& s) {
  return ExpertPlacementRegistry::instance().make(s.strategies.expert_placement, s, "/strategies/expert_placement",
                                                  "expert placement");
}

std::vector<int> greedy_balance(const std::vector<double>& load, int devices, int capacity) {
  std::vector<int> order(load.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return load[a] > load[b]; });
  std::vector<double> device_load(devices, 0);
  std::vector<int> used(devices, 0), device(load.size(), -1);
  for (int item : order) {
    int best = -1;
    for (int d = 0; d < devices; ++d)
      if (used[d] < capacity && (best < 0 || device_load[d] < device_load[best])) best = d;
    device[item] = best;
    device_load[best] += load[item];
    ++used[best];
  }
  return device;
}

LLMSIM_FAMILY(ExpertPlacementStrategy, "strategies", "expert_placement", "contiguous",
              "MoE expert placement over the ep ranks", 30, {"strategies", "expert_placement", 2},
              [](const scenario::Scenario& s) { make_expert_placement(s); });

}  // namespace llmsim::strategy
