// 1F1B / PipeDream-Flush (Narayanan et al., SC'21, Sec. 2.2.1, Fig. 4 top): stage s runs min(p-s-1, m)
// warm-up forwards, then alternates one forward and one backward, then drains the remaining backwards.
// Bubble fraction (p-1)/(m+p-1) with equal stages; at most p-s micro-batches in flight.
#include <algorithm>

#include "llmsim/strategy/pipeline_schedule.hpp"

namespace llmsim::strategy {
namespace {

class OneFOneB final : public PipelineSchedule {
 public:
  int chunks_per_stage() const override { return 1; }
  std::vector<PipelineTask> stage_order(const StageContext& ctx) const override {
    const int m = ctx.micro_batches;
    const int warmup = std::min(ctx.pp - ctx.stage - 1, m);
    std::vector<PipelineTask> order;
    int next_fwd = 0, next_bwd = 0;
    for (; next_fwd < warmup; ++next_fwd) order.push_back({PipelineTask::Pass::Forward, next_fwd, 0});
    while (next_fwd < m) {
      order.push_back({PipelineTask::Pass::Forward, next_fwd++, 0});
      order.push_back({PipelineTask::Pass::Backward, next_bwd++, 0});
    }
    while (next_bwd < m) order.push_back({PipelineTask::Pass::Backward, next_bwd++, 0});
    return order;
  }
};

LLMSIM_REGISTER(PipelineSchedule, "1f1b", "one-forward-one-backward, PipeDream-Flush (Narayanan et al. SC'21 Sec. 2.2.1)", {},
                [](const scenario::Params&, const scenario::Scenario&) { return std::make_unique<OneFOneB>(); });

}  // namespace
}  // namespace llmsim::strategy
