// The placements that ignore co-activation: round-robin, contiguous, load-balanced (greedy by frequency).
#include "llmsim/strategy/expert_placement.hpp"

namespace llmsim::strategy {
namespace {

/// A placement given by a function expert -> device.
template <class DeviceOf>
ExpertPlacement by_function(int experts, int devices, DeviceOf device_of) {
  ExpertPlacement p;
  p.devices = devices;
  p.hosts.resize(experts);
  for (int e = 0; e < experts; ++e) p.hosts[e] = {device_of(e)};
  return p;
}

class RoundRobin final : public ExpertPlacementStrategy {
 public:
  ExpertPlacement place(const ExpertStats& st, int devices) const override {
    return by_function(st.experts, devices, [&](int e) { return e % devices; });
  }
};

class Contiguous final : public ExpertPlacementStrategy {
 public:
  ExpertPlacement place(const ExpertStats& st, int devices) const override {
    const int per = st.experts / devices;
    return by_function(st.experts, devices, [&](int e) { return e / per; });
  }
};

class LoadBalanced final : public ExpertPlacementStrategy {
 public:
  ExpertPlacement place(const ExpertStats& st, int devices) const override {
    const auto device = greedy_balance(st.frequency, devices, st.experts / devices);
    return by_function(st.experts, devices, [&](int e) { return device[e]; });
  }
};

LLMSIM_REGISTER(ExpertPlacementStrategy, "round-robin", "expert e on device e mod D", {},
                [](const scenario::Params&, const scenario::Scenario&) { return std::make_unique<RoundRobin>(); });
LLMSIM_REGISTER(ExpertPlacementStrategy, "contiguous", "experts in equal consecutive blocks per device (Megatron)", {},
                [](const scenario::Params&, const scenario::Scenario&) { return std::make_unique<Contiguous>(); });
LLMSIM_REGISTER(ExpertPlacementStrategy, "load-balanced", "greedy: hottest expert onto the least-loaded device", {},
                [](const scenario::Params&, const scenario::Scenario&) { return std::make_unique<LoadBalanced>(); });

}  // namespace
}  // namespace llmsim::strategy
