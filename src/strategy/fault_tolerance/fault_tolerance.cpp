#include "llmsim/strategy/fault_tolerance.hpp"
#include "llmsim/strategy/family.hpp"

#include "llmsim/util/error.hpp"

namespace llmsim::strategy {
namespace {

class StopAtFirstFailure final : public FaultTolerance {
 public:
  double iteration(const JobCosts& c, const std::set<int>&) const override { return c.iteration; }
  FailureReaction on_failure(const JobCosts&, const std::set<int>&) const override { return {true, false, false, 0}; }
};

LLMSIM_REGISTER(FaultTolerance, "none", "the job stops at the first failure", {},
                [](const scenario::Params&, const scenario::Scenario&) { return std::make_unique<StopAtFirstFailure>(); });

}  // namespace

std::unique_ptr<FaultTolerance> make_fault_tolerance(const scenario::Scenario& s) {
  return FaultToleranceRegistry::instance().make(s.strategies.fault_tolerance, s, "/strategies/fault_tolerance",
                                                 "fault-tolerance module");
}

LLMSIM_FAMILY(FaultTolerance, "strategies", "fault_tolerance", "none", "what the job does when a node fails", 40,
              {"strategies", "fault_tolerance", 4}, [](const scenario::Scenario& s) { make_fault_tolerance(s); });

}  // namespace llmsim::strategy
