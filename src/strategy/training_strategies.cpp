#include "llmsim/strategy/training_strategies.hpp"

#include "llmsim/util/error.hpp"

namespace llmsim::strategy {
namespace {

/// Whether `schedule` braids any two passes of stage 0 (strategy::PipelineTask::braided).
bool braids(const scenario::Scenario& s, const PipelineSchedule& schedule) {
  const auto order = schedule.stage_order({s.parallelism.pp, 0, s.training.micro_batches_per_pipeline(s.parallelism.dp)});
  for (const auto& t : order)
    if (t.braided) return true;
  return false;
}

/// What braids the schedule, for a message: interleaved-1f1b's ep_overlap, or the schedule itself (STP).
struct BraidSource {
  bool ep_overlap;
  std::string what, remedy;
  /// The path an error names: ep_overlap's when it braids, else `otherwise`.
  std::string path(const std::string& otherwise) const {
    return ep_overlap ? "/strategies/pipeline_schedule/ep_overlap" : otherwise;
  }
};
BraidSource braid_source(const scenario::Scenario& s) {
  const std::string& name = s.strategies.pipeline_schedule.name;
  if (name == "interleaved-1f1b")
    return {true, "interleaved-1f1b with ep_overlap (Megatron's combined 1F1B)", "ep_overlap false"};
  return {false, name, "another schedule"};
}

/// A chunked MoE pipeline interleaves its chunks' all-to-alls inside a pass; a braided schedule alternates the
/// segments of two passes. The workload cannot do both in one block.
void check_moe_pipeline_fits(const scenario::Scenario& s, const MoeLayout& layout, const PipelineSchedule& schedule) {
  const bool per_layer = layout.gradient_chunk_bytes > 0;
  if ((layout.chunks == 1 && !per_layer) || !braids(s, schedule)) return;
  const BraidSource braid = braid_source(s);
  throw ScenarioError(braid.path("/strategies/moe_pipeline/" + std::string(per_layer ? "name" : "chunks")),
                      braid.what + " braids two passes, which cannot host " + s.strategies.moe_pipeline.name +
                          "'s chunked exchanges; use " + braid.remedy +
                          (per_layer ? " or moe_pipeline vanilla-ep" : " or moe_pipeline chunks 1"));
}

/// Ring attention overlaps its KV passes with the attention kernels of the same pass; a braided schedule
/// alternates two passes' segments and has no place for that, nor has a MoE pipeline that runs attention in
/// chunks.
void check_context_parallel_fits(const scenario::Scenario& s, const MoeLayout& layout, const PipelineSchedule& schedule) {
  if (s.parallelism.cp == 1) return;
  const std::string cp = " (parallelism.cp " + std::to_string(s.parallelism.cp) + "); use ";
  if (layout.attention_in_pipeline)
    throw ScenarioError("/strategies/moe_pipeline/name", s.strategies.moe_pipeline.name +
                                                             " chunks the attention, which cannot host context "
                                                             "parallelism's exchanges" + cp + "another MoE pipeline "
                                                             "or cp 1");
  if (braids(s, schedule)) {
    const BraidSource braid = braid_source(s);
    throw ScenarioError(braid.path("/strategies/pipeline_schedule/name"),
                        braid.what + " braids two passes, which cannot host context parallelism's exchanges" + cp +
                            braid.remedy + " or cp 1");
  }
}

}  // namespace

void check_combination(const scenario::Scenario& s) {
  const auto schedule = make_pipeline_schedule(s);
  const MoeLayout layout = make_moe_pipeline(s)->layout();
  check_moe_pipeline_fits(s, layout, *schedule);
  check_context_parallel_fits(s, layout, *schedule);
}

TrainingStrategies build_training_strategies(const scenario::Scenario& s) {
  TrainingStrategies out;
  out.schedule = make_pipeline_schedule(s);
  out.expert_placement = make_expert_placement(s);
  out.moe_pipeline = make_moe_pipeline(s);
  out.fault_tolerance = make_fault_tolerance(s);
  out.routing = moe::make_routing(s);
  check_moe_pipeline_fits(s, out.moe_pipeline->layout(), *out.schedule);
  check_context_parallel_fits(s, out.moe_pipeline->layout(), *out.schedule);
  return out;
}

}  // namespace llmsim::strategy
