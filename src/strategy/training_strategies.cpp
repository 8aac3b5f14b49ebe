#include "llmsim/strategy/training_strategies.hpp"

#include "llmsim/util/error.hpp"

namespace llmsim::strategy {
namespace {

/// A chunked MoE pipeline interleaves its chunks' all-to-alls inside a pass; a braided schedule alternates the
/// segments of two passes. The workload cannot do both in one block.
void check_moe_pipeline_fits(const scenario::Scenario& s, const MoeLayout& layout, const PipelineSchedule& schedule) {
  const bool per_layer = layout.gradient_chunk_bytes > 0;
  if (layout.chunks == 1 && !per_layer) return;
  const auto order = schedule.stage_order({s.parallelism.pp, 0, s.training.micro_batches_per_pipeline(s.parallelism.dp)});
  for (const auto& t : order)
    if (t.braided)
      throw ScenarioError("/strategies/moe_pipeline/" + std::string(per_layer ? "name" : "chunks"),
                          s.strategies.moe_pipeline.name + " does not combine with a braided schedule (" +
                              s.strategies.pipeline_schedule.name + ")" +
                              (per_layer ? "" : "; use chunks 1 or another schedule"));
}

}  // namespace

void check_combination(const scenario::Scenario& s) {
  check_moe_pipeline_fits(s, make_moe_pipeline(s)->layout(), *make_pipeline_schedule(s));
}

TrainingStrategies build_training_strategies(const scenario::Scenario& s) {
  TrainingStrategies out;
  out.schedule = make_pipeline_schedule(s);
  out.expert_placement = make_expert_placement(s);
  out.moe_pipeline = make_moe_pipeline(s);
  out.fault_tolerance = make_fault_tolerance(s);
  out.routing = moe::make_routing(s);
  check_moe_pipeline_fits(s, out.moe_pipeline->layout(), *out.schedule);
  return out;
}

}  // namespace llmsim::strategy
