// ZB-V (Qi et al., "Zero Bubble Pipeline Parallelism", ICLR 2024, Sec. 6): two chunks per stage in a V (stage s
// holds model chunks s and 2p-1-s), the backward split into B and W. Stage s runs 2(p-s)-1 forwards of its
// first chunk, s pairs (F of the second chunk, F of the first), p-s triples (F, B, W of the second chunk), then
// the steady state F0 B0 W0 F1 B1 W1 until every forward is done, and the cool-down: s pairs (B0, B1), p-s pairs
// (B0, a deferred W0), the remaining W's. With T_F = T_B = T_W per chunk and free communication the pipeline
// has no bubble; the peak is 2p chunk activation sets (= p micro-batches of a whole stage, 1F1B's peak).
// Needs m >= 2p-1 micro-batches so that the warm-up of stage 0 exists.
#include <algorithm>

#include "llmsim/strategy/pipeline_schedule.hpp"

namespace llmsim::strategy {
namespace {

class ZbV final : public VShapedSchedule {
 public:
  int min_micro_batches(int pp) const override { return 2 * pp - 1; }
  std::vector<PipelineTask> stage_order(const StageContext& ctx) const override {
    using P = PipelineTask::Pass;
    const int p = ctx.pp, s = ctx.stage, m = ctx.micro_batches;
    std::vector<PipelineTask> order;
    int f[2] = {0, 0}, b[2] = {0, 0}, w[2] = {0, 0};
    auto F = [&](int c) { order.push_back({P::Forward, f[c]++, c}); };
    auto B = [&](int c) { order.push_back({P::BackwardInput, b[c]++, c}); };
    auto W = [&](int c) { order.push_back({P::BackwardWeight, w[c]++, c}); };
    for (int i = 0; i < 2 * (p - s) - 1; ++i) F(0);
    for (int i = 0; i < s; ++i) F(1), F(0);
    for (int i = 0; i < p - s; ++i) F(1), B(1), W(1);
    while (f[0] < m || f[1] < f[0]) {
      if (f[0] < m) F(0);
      B(0), W(0), F(1), B(1), W(1);
    }
    for (int i = 0; i < s; ++i) B(0), B(1);
    for (int i = 0; i < p - s; ++i) B(0), W(0);
    while (w[1] < b[1]) W(1);
    while (w[0] < b[0]) W(0);
    return order;
  }
};

LLMSIM_REGISTER(PipelineSchedule, "zb-v",
                "zero-bubble ZB-V: two chunks per stage in a V, B/W split (Qi et al. 2024 Sec. 6); m >= 2p-1", {},
                [](const scenario::Params&, const scenario::Scenario&) { return std::make_unique<ZbV>(); });

}  // namespace
}  // namespace llmsim::strategy
