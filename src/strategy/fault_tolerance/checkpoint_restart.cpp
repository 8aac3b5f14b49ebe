// checkpoint-restart (strategy/fault_tolerance.hpp).
#include <cmath>

#include "llmsim/strategy/fault_tolerance.hpp"
#include "llmsim/util/limits.hpp"

namespace llmsim::strategy {
namespace {

class CheckpointRestart final : public FaultTolerance {
 public:
  /// `interval` [s] (< 0: Young/Daly), `bandwidth` [bytes/s], `restart` [s].
  CheckpointRestart(double interval, double bandwidth, double restart)
      : interval_(interval), bandwidth_(bandwidth), restart_(restart) {}
  /// The job restarts at full size: with a node down it waits for the node's repair or a spare.
  double iteration(const JobCosts& c, const std::set<int>& down) const override { return down.empty() ? c.iteration : -1; }
  FailureReaction on_failure(const JobCosts& c, const std::set<int>&) const override {
    return {false, true, false, restart_ + c.checkpoint_bytes / bandwidth_};
  }
  /// Young/Daly: sqrt(2 * delta * M) for "auto" (interval_ < 0).
  double checkpoint_interval(const JobCosts& c, double mtbf) const override {
    if (interval_ >= 0) return interval_;
    return std::isfinite(mtbf) ? std::sqrt(2 * checkpoint_write(c) * mtbf) : 0;
  }
  double checkpoint_write(const JobCosts& c) const override { return c.checkpoint_bytes / bandwidth_; }
  ModuleNumbers report(const JobCosts& c) const override {
    return {{"checkpoint_write_s", checkpoint_write(c)}, {"restart_s", restart_ + c.checkpoint_bytes / bandwidth_}};
  }

 private:
  double interval_, bandwidth_, restart_;
};

LLMSIM_REGISTER(FaultTolerance, "checkpoint-restart",
                "periodic checkpoints; a failure rolls back to the last one and restarts on a spare node",
                (scenario::FieldList{
                    scenario::Field::number("interval_h", "h",
                                            "training time between checkpoints; auto = Young/Daly sqrt(2 delta M)")
                        .at_least(limits::kMinOutage_h)
                        .or_auto()
                        .with_default("auto"),
                    scenario::Field::number("storage_GBps", "GB/s", "aggregate checkpoint write/read bandwidth")
                        .at_least(0.001)
                        .at_most(1e6)
                        .with_default(50.0),
                    scenario::Field::number("restart_s", "s",
                                            "detection, rescheduling on a spare node and initialisation")
                        .at_least(0)
                        .with_default(600.0)}),
                [](const scenario::Params& p, const scenario::Scenario&) {
                  const double interval = p.is_auto("interval_h") ? -1 : p.seconds("interval_h");
                  return std::make_unique<CheckpointRestart>(interval, p.bytes_per_second("storage_GBps"),
                                                             p.seconds("restart_s"));
                });

}  // namespace
}  // namespace llmsim::strategy
