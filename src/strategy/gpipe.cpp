// GPipe (Huang et al., NeurIPS 2019, Sec. 2.3): every micro-batch's forward, then every backward.
// Bubble fraction (p-1)/(m+p-1); activation memory of all m micro-batches.
#include "llmsim/strategy/pipeline_schedule.hpp"

namespace llmsim::strategy {
namespace {

class GPipe final : public PipelineSchedule {
 public:
  int chunks_per_stage() const override { return 1; }
  std::vector<PipelineTask> stage_order(const StageContext& ctx) const override {
    std::vector<PipelineTask> order;
    for (int i = 0; i < ctx.micro_batches; ++i) order.push_back({PipelineTask::Pass::Forward, i, 0});
    for (int i = ctx.micro_batches - 1; i >= 0; --i) order.push_back({PipelineTask::Pass::Backward, i, 0});
    return order;
  }
};

LLMSIM_REGISTER(PipelineSchedule, "gpipe", "all forwards, then all backwards (Huang et al. 2019)", {},
                [](const scenario::Params&, const scenario::Scenario&) { return std::make_unique<GPipe>(); });

}  // namespace
}  // namespace llmsim::strategy
