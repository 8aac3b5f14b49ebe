// bamboo and oobleck (strategy/fault_tolerance.hpp): the two baselines of MeCeFO's comparison.
#include <algorithm>

#include "coverage.hpp"
#include "llmsim/model/moe.hpp"

namespace llmsim::strategy {
namespace {

/// Copying one node's weights and optimizer state over its NIC [s].
double state_copy(const JobCosts& c) { return c.node_state_bytes / c.node_bandwidth; }

/// Oobleck's reconfiguration (rendezvous and re-instantiation) [s] for a model of `params` parameters, as the
/// simulator of its SOSP'23 artifact charges it (SymbioticLab/Oobleck tools/simulator/oobleck_simulator.py at
/// 103c4777, local_rendezvous_timeout_delta): GPT-3 medium (0.35B) 3 s, GPT-3 2.7B 6 s, GPT-3 6.7B 10 s; linear in
/// the parameters between them, the end values outside.
double oobleck_reconfiguration(double params) {
  const double b[] = {0.35e9, 2.7e9, 6.7e9}, s[] = {3, 6, 10};
  if (params <= b[0]) return s[0];
  for (int i = 1; i < 3; ++i)
    if (params <= b[i]) return s[i - 1] + (s[i] - s[i - 1]) * (params - b[i - 1]) / (b[i] - b[i - 1]);
  return s[2];
}

class Bamboo final : public FaultTolerance {
 public:
  explicit Bamboo(double failover_s) : failover_(failover_s) {}
  /// The successor's forward runs in the time the worker does not compute; the rest lengthens the iteration.
  double healthy(const JobCosts& c) const {
    const double spare = std::max(0.0, c.iteration - c.worker_forward - c.worker_backward);
    return c.iteration + std::max(0.0, c.worker_forward - spare);
  }
  double iteration(const JobCosts& c, const std::set<int>& down) const override {
    if (down.empty()) return healthy(c);
    return covered(c, down, Cover::kPipelinePredecessor) ? healthy(c) + c.worker_backward : -1;
  }
  FailureReaction on_failure(const JobCosts&, const std::set<int>&) const override { return {false, false, true, failover_}; }
  double repair_stall(const JobCosts& c, const std::set<int>&) const override { return state_copy(c); }
  ModuleNumbers report(const JobCosts& c) const override {
    return {{"failure_free_iteration_s", healthy(c)}, {"redundancy_overhead", healthy(c) / c.iteration - 1}};
  }

 private:
  double failover_;
};

class Oobleck final : public FaultTolerance {
 public:
  explicit Oobleck(double reconfigure_s) : reconfigure_(reconfigure_s) {}
  std::vector<int> templates(const std::set<int>& up_counts) const override {
    return std::vector<int>(up_counts.begin(), up_counts.end());
  }
  double iteration(const JobCosts& c, const std::set<int>& down) const override {
    if (down.empty()) return c.iteration;
    const auto it = c.iteration_on_nodes.find(c.nodes - static_cast<int>(down.size()));
    return it == c.iteration_on_nodes.end() ? -1 : it->second;
  }
  FailureReaction on_failure(const JobCosts& c, const std::set<int>&) const override {
    return {false, false, false, state_copy(c) + reconfigure_};
  }
  double repair_stall(const JobCosts& c, const std::set<int>&) const override { return state_copy(c) + reconfigure_; }

 private:
  double reconfigure_;
};

LLMSIM_REGISTER(FaultTolerance, "bamboo",
                "redundant computation: each node runs its successor's forward; its predecessor takes a failure over",
                {scenario::Field::number("failover_s", "s",
                                         "pause while the predecessor takes over with its redundant copy; 0 as in "
                                         "Bamboo's simulator (uclasystem/bamboo project_pactum/simulation/"
                                         "simulator.py: a removal only slows the step, no rendezvous)")
                     .at_least(0)
                     .with_default(0.0)},
                [](const scenario::Params& p, const scenario::Scenario& s) {
                  require_other_nodes(s, "bamboo");
                  return std::make_unique<Bamboo>(p.seconds("failover_s"));
                });
LLMSIM_REGISTER(FaultTolerance, "oobleck",
                "pipeline templates: re-instantiate on the nodes left (batch re-balanced), grow back on repair",
                {scenario::Field::number("reconfigure_s", "s",
                                         "re-instantiating the pipelines, besides copying a node's states; auto = "
                                         "its artifact's simulator by model size: 3 s at 0.35B, 6 s at 2.7B, 10 s "
                                         "at 6.7B parameters, linear between")
                     .at_least(0)
                     .or_auto()
                     .with_default("auto")},
                [](const scenario::Params& p, const scenario::Scenario& s) {
                  require_other_nodes(s, "oobleck");
                  return std::make_unique<Oobleck>(p.is_auto("reconfigure_s") ? oobleck_reconfiguration(model::model_params(s.model))
                                                                              : p.seconds("reconfigure_s"));
                });

}  // namespace
}  // namespace llmsim::strategy
