// Interleaved 1F1B (Narayanan et al., SC'21, Sec. 2.2.2, Fig. 4 bottom): each stage holds v model chunks
// (chunk c of stage s is model chunk c*p+s). Micro-batches advance in groups of p through the chunks.
// The order follows Megatron-LM's forward_backward_pipelining_with_interleaving: forward task k runs chunk
// (k/p) mod v of micro-batch (k/(p*v))*p + k mod p; backward task k runs chunk v-1-((k/p) mod v); stage s runs
// (p-s-1)*2 + (v-1)*p warm-up forwards (all of them when m == p). Requires m to be a multiple of p.
// Bubble fraction (p-1)/(v*m+p-1) with equal stages.
// ep_overlap (Megatron-Core's overlap_moe_expert_parallel_comm, "combined 1F1B": megatron/core/pipeline_parallel/
// schedules.py and combined_1f1b.py, models/common/model_chunk_schedule_plan.py): one more warm-up forward, so that
// the forward and backward of each steady-state step are independent, and each steady-state forward braided with
// the backward after it (PipelineTask::braided): their segments alternate and each pass's all-to-alls (and tp
// collectives) run beside the other pass's compute, as Megatron runs one micro-batch's dispatch and combine on
// its communication stream during the other's attention and expert computation. The extra warm-up forward reaches
// the peak of held activation sets that the first steady forward reaches without it (max_in_flight counts a braided
// pair once). Megatron asserts expert parallelism, no full recomputation, and virtual stages when
// pp > 1 (transformer_config.py); the same are errors here.
#include <algorithm>

#include "llmsim/strategy/pipeline_schedule.hpp"
#include "llmsim/util/error.hpp"

namespace llmsim::strategy {
namespace {

class Interleaved1F1B final : public PipelineSchedule {
 public:
  Interleaved1F1B(int v, bool ep_overlap) : v_(v), ep_overlap_(ep_overlap) {}
  int chunks_per_stage() const override { return v_; }
  int micro_batch_multiple(int pp) const override { return pp; }
  bool hosts_p2p_overlap() const override { return v_ > 1; }  // Megatron has no interleaving at v = 1
  std::vector<PipelineTask> stage_order(const StageContext& ctx) const override {
    const int p = ctx.pp, m = ctx.micro_batches, total = m * v_;
    auto task = [&](int k, PipelineTask::Pass pass) {
      int chunk = (k / p) % v_;
      if (pass == PipelineTask::Pass::Backward) chunk = v_ - 1 - chunk;
      return PipelineTask{pass, (k / (p * v_)) * p + k % p, chunk};
    };
    const int extra = ep_overlap_ ? 1 : 0;
    const int warmup = m == p ? total : std::min(total, (p - ctx.stage - 1) * 2 + (v_ - 1) * p + extra);
    std::vector<PipelineTask> order;
    for (int k = 0; k < warmup; ++k) order.push_back(task(k, PipelineTask::Pass::Forward));
    for (int k = 0; k < total - warmup; ++k) {
      order.push_back(task(k + warmup, PipelineTask::Pass::Forward));
      order.push_back(task(k, PipelineTask::Pass::Backward));
      order.back().braided = ep_overlap_;
    }
    for (int k = std::max(0, total - warmup); k < total; ++k) order.push_back(task(k, PipelineTask::Pass::Backward));
    return order;
  }

 private:
  int v_;
  bool ep_overlap_;
};

/// Megatron-Core's preconditions of overlap_moe_expert_parallel_comm (transformer_config.py), as scenario errors.
void check_ep_overlap(const scenario::Scenario& s, int v) {
  const std::string path = "/strategies/pipeline_schedule/ep_overlap";
  if (s.kind == "moe-chiplet")
    throw ScenarioError(path, "a moe-chiplet system runs its micro-batches layer by layer, without forward and "
                              "backward tasks to pair");
  if (s.parallelism.ep < 2) throw ScenarioError(path, "needs expert parallelism (parallelism.ep > 1)");
  if (s.training.recompute == "full")
    throw ScenarioError(path, "cannot run with training.recompute full (Megatron-Core refuses it)");
  if (s.parallelism.pp > 1 && v < 2)
    throw ScenarioError(path, "needs virtual_stages >= 2 when pp > 1 (Megatron-Core's combined 1F1B is interleaved)");
}

const scenario::FieldList kParams = {
    scenario::Field::integer("virtual_stages", "model chunks per pipeline stage (v); layers must divide by pp*v")
        .at_least(1)
        .with_default(2),
    scenario::Field::boolean("ep_overlap", "Megatron-Core's overlap_moe_expert_parallel_comm: one more warm-up "
                                           "forward, then each steady-state forward braided with a backward so that "
                                           "each one's MoE all-to-alls run beside the other's compute; needs ep > 1, "
                                           "no full recomputation, virtual_stages >= 2 when pp > 1 (summary.json "
                                           "parallelism.ep_overlap: whether a steady phase paired any)")
        .with_default(false)};

LLMSIM_REGISTER(PipelineSchedule, "interleaved-1f1b",
                "interleaved 1F1B with virtual stages (Narayanan et al. SC'21 Sec. 2.2.2)", kParams,
                [](const scenario::Params& params, const scenario::Scenario& s) -> std::unique_ptr<PipelineSchedule> {
                  const int v = params.integer("virtual_stages");
                  const bool ep_overlap = params.flag("ep_overlap");
                  if (ep_overlap) check_ep_overlap(s, v);
                  const int m = s.training.micro_batches_per_pipeline(s.parallelism.dp);
                  if (m % Interleaved1F1B(v, ep_overlap).micro_batch_multiple(s.parallelism.pp) != 0)
                    throw ScenarioError("/training/global_batch",
                                        "interleaved-1f1b needs the micro-batches per pipeline (" + std::to_string(m) +
                                            ") to be a multiple of pp (" + std::to_string(s.parallelism.pp) + ")");
                  return std::make_unique<Interleaved1F1B>(v, ep_overlap);
                });

}  // namespace
}  // namespace llmsim::strategy
