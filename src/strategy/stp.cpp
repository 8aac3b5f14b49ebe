// STP, the braided schedule of Qi et al., "Synergistic Tensor and Pipeline Parallelism" (arXiv 2510.27257;
// order of the public generator MICLAB-BUPT/STP stp/schedule.py, re-derived here): two chunks per stage in a V
// (stage s holds model chunks s and 2p-1-s), backward split into B and W where it helps, and composite tasks
// that braid two passes unit by unit so each tp all-reduce runs beside the other pass's compute
// (PipelineTask::braided; the unit chains are in workload/chunk_passes.hpp). Stage s of p, m micro-batches,
// F_c / B_c / b_c = forward / whole backward / B-only backward of local chunk c, W = the oldest deferred W,
// [x + y] = braided pair:
//   1. 2(p-s-1) x F_0                      2. (s+1) x (F_0, F_1)
//   3. F_0 if s+1 is odd, then (s+1)/2 x [F_0 + F_0]
//   4. (p-s-1) x ([F_1 + b_1], [F_0 + W])
//   5. 2(m-3p+1)+1+2s alternating [F_1 + x_1], [F_0 + x_0] starting with chunk 1; x = B for the first
//      2(m-3p+1)+1+s of them, b after
//   6. (2p-2-s) x (B_0, [F_1 + b_1])       7. (s+1) x (B_0, B_1)
//   8. 1+2(p-s-1) steps alternating B_0 and (W, W), starting with B_0
//   9. 2s x W
// The generator asserts m >= 2p, but its step 5 has a non-negative length on stage 0 only when m >= 3p-1 (for
// smaller m stage 0 would run forwards of micro-batches that do not exist — checked by counting its
// instructions), so llmsim requires m >= 3p-1. Peak: 3p chunk activation sets on stage 0 (the paper's 3p M_a).
// offload: true is the paper's offloading variant: the first chunk's activations are copied to host memory
// after each forward and back before its backward, beside the compute (workload/pipeline_ops.hpp).
#include "llmsim/strategy/pipeline_schedule.hpp"

namespace llmsim::strategy {
namespace {

class Stp final : public VShapedSchedule {
 public:
  explicit Stp(bool offload) : offload_(offload) {}
  int min_micro_batches(int pp) const override { return 3 * pp - 1; }
  int offloaded_chunk() const override { return offload_ ? 0 : -1; }
  std::vector<PipelineTask> stage_order(const StageContext& ctx) const override {
    using P = PipelineTask::Pass;
    const int p = ctx.pp, s = ctx.stage, m = ctx.micro_batches;
    std::vector<PipelineTask> order;
    int f[2] = {0, 0}, b[2] = {0, 0};
    std::vector<PipelineTask> deferred;  // W's of B-only backwards, oldest first
    size_t next_w = 0;
    bool braid = false;  // the next task joins the one before it
    auto push = [&](PipelineTask t) {
      t.braided = braid;
      braid = false;
      order.push_back(t);
    };
    auto F = [&](int c) { push({P::Forward, f[c]++, c}); };
    auto B = [&](int c) { push({P::Backward, b[c]++, c}); };
    auto b_only = [&](int c) {
      deferred.push_back({P::BackwardWeight, b[c], c});
      push({P::BackwardInput, b[c]++, c});
    };
    auto W = [&]() { push(deferred.at(next_w++)); };
    auto with = [&]() { braid = true; };

    for (int i = 0; i < 2 * (p - s - 1); ++i) F(0);
    for (int i = 0; i < s + 1; ++i) F(0), F(1);
    if ((s + 1) % 2 == 1) F(0);
    for (int i = 0; i < (s + 1) / 2; ++i) F(0), with(), F(0);
    for (int i = 0; i < p - s - 1; ++i) {
      F(1), with(), b_only(1);
      F(0), with(), W();
    }
    const int steady = 2 * (m - 3 * p + 1) + 1 + 2 * s, whole = 2 * (m - 3 * p + 1) + 1 + s;
    for (int i = 0; i < steady; ++i) {
      const int c = i % 2 == 0 ? 1 : 0;
      F(c), with();
      if (i < whole) B(c); else b_only(c);
    }
    for (int i = 0; i < 2 * p - 2 - s; ++i) B(0), F(1), with(), b_only(1);
    for (int i = 0; i < s + 1; ++i) B(0), B(1);
    for (int i = 0; i < 1 + 2 * (p - s - 1); ++i) {
      if (i % 2 == 0) B(0); else W(), W();
    }
    for (int i = 0; i < 2 * s; ++i) W();
    return order;
  }

 private:
  bool offload_;
};

const scenario::FieldList kParams = {
    scenario::Field::boolean("offload", "copy the first chunk's activations to host memory after each forward and "
                                        "back before its backward, over the host link beside the compute")
        .with_default(false)};

LLMSIM_REGISTER(PipelineSchedule, "stp",
                "braided TP/PP schedule STP: V placement, forward and backward units braided to hide tp all-reduces "
                "(Qi et al. 2025); m >= 3p-1", kParams,
                [](const scenario::Params& params, const scenario::Scenario&) {
                  return std::make_unique<Stp>(params.flag("offload"));
                });

}  // namespace
}  // namespace llmsim::strategy
