// ZB-H1 (Qi et al., "Zero Bubble Pipeline Parallelism", ICLR 2024, Sec. 3.1): 1F1B with the backward split into
// B (activation gradient) and W (weight gradient). Stage s runs min(p-s-1, m) warm-up forwards like 1F1B, then
// F, B per micro-batch with each W deferred by s micro-batches, so the later stages — whose B's head the
// backward chain — run their B's early; in the cool-down each B is followed by one deferred W, the rest of
// the W's close the iteration. Every stage holds at most p micro-batches' activations (W frees them), the peak
// of 1F1B's first stage. Bubble (p-1)(T_F + T_B - T_W) with equal stages (tested).
#include <algorithm>

#include "llmsim/strategy/pipeline_schedule.hpp"

namespace llmsim::strategy {
namespace {

class ZbH1 final : public PipelineSchedule {
 public:
  int chunks_per_stage() const override { return 1; }
  std::vector<PipelineTask> stage_order(const StageContext& ctx) const override {
    using P = PipelineTask::Pass;
    const int m = ctx.micro_batches, warmup = std::min(ctx.pp - ctx.stage - 1, m);
    std::vector<PipelineTask> order;
    for (int i = 0; i < warmup; ++i) order.push_back({P::Forward, i, 0});
    const int delay = ctx.stage;
    int next_w = 0;
    for (int k = 0; k + warmup < m; ++k) {
      order.push_back({P::Forward, k + warmup, 0});
      order.push_back({P::BackwardInput, k, 0});
      if (k >= delay) order.push_back({P::BackwardWeight, next_w++, 0});
    }
    for (int k = std::max(0, m - warmup); k < m; ++k) {
      order.push_back({P::BackwardInput, k, 0});
      if (next_w <= k) order.push_back({P::BackwardWeight, next_w++, 0});
    }
    while (next_w < m) order.push_back({P::BackwardWeight, next_w++, 0});
    return order;
  }
};

LLMSIM_REGISTER(PipelineSchedule, "zb-h1", "zero-bubble ZB-H1: 1F1B with B/W split, W deferred in the cool-down (Qi et al. 2024)",
                {}, [](const scenario::Params&, const scenario::Scenario&) { return std::make_unique<ZbH1>(); });

}  // namespace
}  // namespace llmsim::strategy
