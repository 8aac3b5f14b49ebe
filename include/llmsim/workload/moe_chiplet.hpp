#pragma once
// Mozart's chiplet system (scenario kind "moe-chiplet"; docs/moe.md): node 0 of a nop-tree is the attention
// chiplet, nodes 1..D the expert chiplets, chiplet d in group (d-1)/chiplets_per_group reading its experts'
// weights from that group's DRAM (platform memories). An iteration runs every micro-batch (global_batch /
// micro_batch of b*s tokens) forward through the layers, then backward in reverse:
//   attention chiplet: attention (+ router, shared experts, dense FFN of dense layers) of a micro-batch, then
//     sends each expert chiplet its token copies and receives their outputs;
//   expert chiplet: reads the weights of its experts for this micro-batch from DRAM, receives its tokens,
//     computes its experts on their tokens, sends the outputs back (backward: 2x the FLOPs, dgrad + wgrad,
//     and the weight gradients written back to DRAM).
// Without streaming (strategies.moe_pipeline vanilla-ep) every step waits for the previous one: the attention
// chiplet waits for all outputs of a micro-batch before the next; an expert chiplet, once its tokens have
// arrived (they say which experts are needed), reads all those experts' weights, then computes. With `streaming` (Mozart): micro-batches flow through the layers in a pipeline (the
// attention chiplet works on the next micro-batch while the experts compute), each expert chiplet reads its
// experts one by one, hottest first, and computes each as soon as it has arrived while the next one — of this
// or the next micro-batch — is read (prefetch). Token copies follow parallelism.ep_dispatch; placement follows
// strategies.expert_placement (C_T).
#include "llmsim/hardware/compute_model.hpp"
#include "llmsim/scenario/scenario.hpp"
#include "llmsim/workload/training.hpp"

namespace llmsim::workload {

/// The run as a TrainingPlan (one pseudo-stage, memory not modelled: stages is empty).
TrainingPlan build_moe_chiplet(const scenario::Scenario& s, const hardware::ComputeModel& cm,
                               const strategy::TrainingStrategies& strategies);

}  // namespace llmsim::workload
