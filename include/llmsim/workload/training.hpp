#pragma once
// Megatron-style training workload (tp x pp x dp): turns a scenario, a compute model and a pipeline
// schedule into one Program per tensor-parallel group (see program.hpp).
//
// Per layer and micro-batch: forward = layer_forward kernels + 2 tp all-reduces (or, with sequence
// parallelism, 2 all-gathers + 2 reduce-scatters of the same total bytes); backward = recomputed kernels (+2
// all-reduces when recomputing a full layer) + backward_input and backward_weight kernels + 2 all-reduces. The embedding (first
// model chunk) adds one tp all-reduce forward; the output layer (last chunk) one backward. tp collectives are
// blocking and run inside a node over NVSwitch: ring formula with the calibrated NVLink bandwidth.
// tp_variant "fal" (First Attentions Last): every MLP after the first block reads the first block's attention
// output, so a block's attention and MLP partial sums are reduced by one all-reduce per pass (the first block
// keeps two); "fal+" adds the normalised first attention output to each block's attention output, which the
// MLP then needs reduced, so both all-reduces remain.
// Pipeline: activations of b*s*h elements go between consecutive model chunks; with scatter/gather each tp
// rank sends 1/tp of them and the receiver all-gathers over NVLink (Narayanan et al. SC'21 Sec. 4.1).
// Data parallelism: gradients (fp32 for bf16 training, else the training precision) are all-reduced over dp in
// buckets of grad_bucket_MB; with overlap_grad_reduce a chunk's buckets start right after its last backward,
// else after the whole pipeline. ZeRO (zero_stage >= 1; Megatron's distributed optimizer is stage 1) turns
// the all-reduce into a reduce-scatter; stages 1-2 all-gather the updated parameters after the optimizer step,
// stage 3 keeps them sharded and all-gathers a chunk's parameters before each of its forward and backward
// blocks (blocking: prefetch overlap is not modelled). With tied embeddings and pp > 1
// the embedding gradient is all-reduced between the first and last stage.
// Rank order is Megatron's: tp fastest, then dp, then pp.
#include <memory>
#include <vector>

#include "llmsim/hardware/compute_model.hpp"
#include "llmsim/scenario/scenario.hpp"
#include "llmsim/strategy/pipeline_schedule.hpp"
#include "llmsim/workload/memory.hpp"
#include "llmsim/workload/moe_plan.hpp"
#include "llmsim/workload/program.hpp"

namespace llmsim::workload {

struct StagePlan {
  int stage = 0;
  int layers = 0;          ///< transformer layers on this stage (all its chunks)
  double params = 0;       ///< parameters per GPU
  int max_in_flight = 0;   ///< (micro-batch, chunk) activation sets held at once
  MemoryBreakdown memory;  ///< per GPU
};

struct TrainingPlan {
  Workload workload;
  std::vector<StagePlan> stages;
  int micro_batches = 0;     ///< per pipeline per iteration
  int virtual_stages = 1;
  double model_flops = 0;    ///< per iteration, whole job: 3x forward FLOPs (no recomputation)
  double hardware_flops = 0; ///< per iteration, whole job: FLOPs executed, recomputation included
  double tokens = 0;         ///< per iteration
  MoePlan moe;               ///< routing, placement and traffic of the MoE layers (empty for dense models)
};

TrainingPlan build_training(const scenario::Scenario& s, const hardware::ComputeModel& cm,
                            const strategy::PipelineSchedule& schedule);

}  // namespace llmsim::workload
