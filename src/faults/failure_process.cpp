#include "llmsim/faults/failure_process.hpp"
#include "llmsim/strategy/family.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <queue>

#include "llmsim/util/error.hpp"
#include "llmsim/util/limits.hpp"

namespace llmsim::faults {
namespace {

constexpr double kHour = 3600;
constexpr size_t kMaxFailures = 1000000;

/// Renewal process of the cluster: inter-arrival times from `gap`, each failure on a node that is up.
class Renewal : public FailureProcess {
 public:
  /// `mtbf`, `repair` [s].
  Renewal(double mtbf, double repair, bool nic = false) : mtbf_(mtbf), repair_(repair), nic_(nic) {}
  std::vector<Failure> draw(int nodes, int gpus_per_node, double horizon, std::mt19937_64& rng) const override {
    std::vector<Failure> out;
    std::vector<double> up_at(nodes, 0);  // when each node is up again
    for (double t = gap(nodes, gpus_per_node, rng); t < horizon; t += gap(nodes, gpus_per_node, rng)) {
      std::vector<int> up;
      for (int n = 0; n < nodes; ++n)
        if (up_at[n] <= t) up.push_back(n);
      if (up.empty()) continue;
      const int node = up[std::uniform_int_distribution<size_t>(0, up.size() - 1)(rng)];
      out.push_back({t, node, repair_, nic_});
      if (out.size() > kMaxFailures)
        throw ScenarioError("/faults/process", "more than 1,000,000 failures over the horizon: lower the failure rate "
                                               "or faults.horizon_h");
      up_at[node] = t + repair_;
    }
    return out;
  }
  double cluster_mtbf(int nodes, int gpus_per_node, double) const override { return mean_gap(nodes, gpus_per_node); }

 protected:
  virtual double mean_gap(int, int) const { return mtbf_; }
  virtual double gap(int nodes, int gpus_per_node, std::mt19937_64& rng) const {
    return std::exponential_distribution<double>(1 / mean_gap(nodes, gpus_per_node))(rng);
  }
  double mtbf_, repair_;
  bool nic_;
};

class Weibull final : public Renewal {
 public:
  Weibull(double shape, double mtbf, double repair, bool nic) : Renewal(mtbf, repair, nic), shape_(shape) {}

 private:
  double gap(int, int, std::mt19937_64& rng) const override {
    return std::weibull_distribution<double>(shape_, mtbf_ / std::tgamma(1 + 1 / shape_))(rng);
  }
  double shape_;
};

/// One failure per `gpu_hours` GPU-hours over the cluster's GPUs.
class PerGpu final : public Renewal {
 public:
  /// `gpu_time`: GPU-seconds per failure; `repair` [s].
  PerGpu(double gpu_time, double repair, bool nic) : Renewal(gpu_time, repair, nic) {}

 private:
  double mean_gap(int nodes, int gpus_per_node) const override { return mtbf_ / (double(nodes) * gpus_per_node); }
};

class NoFailures final : public FailureProcess {
 public:
  std::vector<Failure> draw(int, int, double, std::mt19937_64&) const override { return {}; }
  double cluster_mtbf(int, int, double) const override { return std::numeric_limits<double>::infinity(); }
};

const scenario::Field kRepair =
    scenario::Field::number("repair_h", "h", "time until a failed node is back").at_least(limits::kMinOutage_h)
        .with_default(2.0);
const scenario::Field kTarget =
    scenario::Field::choice("target", {"node", "nic"}, "what fails: the node, or its network link (cut off)")
        .with_default("node");
bool nic(const scenario::Params& p) { return p.text("target") == "nic"; }

LLMSIM_REGISTER(FailureProcess, "none", "no failures", {},
                [](const scenario::Params&, const scenario::Scenario&) { return std::make_unique<NoFailures>(); });
LLMSIM_REGISTER(FailureProcess, "exponential",
                "Poisson failures of the cluster (mean time between failures mtbf_h), each repaired after repair_h",
                (scenario::FieldList{scenario::Field::number("mtbf_h", "h", "mean time between failures of the cluster")
                                         .at_least(0.001),
                                     kRepair, kTarget}),
                [](const scenario::Params& p, const scenario::Scenario&) {
                  return std::make_unique<Renewal>(p.seconds("mtbf_h"), p.seconds("repair_h"), nic(p));
                });
LLMSIM_REGISTER(FailureProcess, "weibull",
                "Weibull times between cluster failures (shape, mean mtbf_h), each repaired after repair_h",
                (scenario::FieldList{scenario::Field::number("shape", "", "Weibull shape k (1 = exponential)").at_least(0.05),
                                     scenario::Field::number("mtbf_h", "h", "mean time between failures of the cluster")
                                         .at_least(0.001),
                                     kRepair, kTarget}),
                [](const scenario::Params& p, const scenario::Scenario&) {
                  return std::make_unique<Weibull>(p.number("shape"), p.seconds("mtbf_h"),
                                                   p.seconds("repair_h"), nic(p));
                });
LLMSIM_REGISTER(FailureProcess, "mecefo-low", "MeCeFO's low rate: a failure every 2 h, recovery after 4 h", {},
                [](const scenario::Params&, const scenario::Scenario&) { return std::make_unique<Renewal>(2 * kHour, 4 * kHour); });
LLMSIM_REGISTER(FailureProcess, "mecefo-mid", "MeCeFO's mid rate: a failure every 1 h, recovery after 3 h", {},
                [](const scenario::Params&, const scenario::Scenario&) { return std::make_unique<Renewal>(1 * kHour, 3 * kHour); });
LLMSIM_REGISTER(FailureProcess, "mecefo-high", "MeCeFO's high rate: a failure every 0.5 h, recovery after 2 h", {},
                [](const scenario::Params&, const scenario::Scenario&) { return std::make_unique<Renewal>(0.5 * kHour, 2 * kHour); });
LLMSIM_REGISTER(FailureProcess, "llama3",
                "Llama 3 405B's GPU failure rate (one per 50,680 GPU-hours), a failed GPU's node out for repair_h",
                {kRepair, kTarget}, [](const scenario::Params& p, const scenario::Scenario&) {
                  return std::make_unique<PerGpu>(16384.0 * 54 * 24 / 419 * kHour, p.seconds("repair_h"), nic(p));
                });

}  // namespace

std::unique_ptr<FailureProcess> make_failure_process(const scenario::Scenario& s) {
  return FailureProcessRegistry::instance().make(s.faults.process, s, "/faults/process", "failure process");
}

FailureDraw failures_of(const scenario::Scenario& s) {
  std::mt19937_64 rng(s.seed * 0x9E3779B97F4A7C15ULL + 0xFA17);
  const auto process = make_failure_process(s);
  auto out = process->draw(s.cluster.nodes, s.cluster.gpus_per_node, s.faults.horizon, rng);
  for (const auto& f : out)
    if (f.node < 0 || f.node >= s.cluster.nodes)
      throw ScenarioError("/faults/process", "a failure of node " + std::to_string(f.node) + ", but the cluster has " +
                                                 std::to_string(s.cluster.nodes) + " nodes (0-" +
                                                 std::to_string(s.cluster.nodes - 1) + ")");
  return {with_spares(out, s.faults.spare_nodes, s.faults.replace),
          process->cluster_mtbf(s.cluster.nodes, s.cluster.gpus_per_node, s.faults.horizon)};
}

std::vector<Failure> with_spares(std::vector<Failure> failures, int spares, double replace) {
  // When each spare is in the pool again (its failed node repaired), soonest on top. Each failure takes at most
  // one spare, so spares beyond the number of failures are never needed.
  std::priority_queue<double, std::vector<double>, std::greater<double>> free_at(
      std::greater<double>(), std::vector<double>(std::min<size_t>(std::max(spares, 0), failures.size()), 0));
  for (auto& f : failures) {
    if (replace >= f.duration || free_at.empty() || free_at.top() > f.time) continue;  // none free: wait for the repair
    free_at.pop();
    free_at.push(f.time + f.duration);  // the repaired node becomes the spare
    f.duration = replace;
  }
  return failures;
}

// The failures exist on this cluster (a trace is read and checked).
LLMSIM_FAMILY(FailureProcess, "faults", "process", "none", "failure process", 70,
              {"faults", "faults.process (failure processes)", 1}, [](const scenario::Scenario& s) { failures_of(s); });

}  // namespace llmsim::faults
