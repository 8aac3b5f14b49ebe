#pragma once
// Megatron-style training workload (tp x pp x dp): turns a scenario, a compute model and its strategies into
// one Program per tensor-parallel group (see program.hpp), in two steps:
//   plan_training  what each rank computes, holds and exchanges: the rank layout (TrainingLayout), each model
//                  chunk's passes (chunk_passes.hpp) and MoE exchanges (moe_exchanges.hpp), per stage its
//                  parameters, memory by category, schedule order and optimizer step, and what the
//                  gradient-sync hook (gradient_sync.hpp) adds; every cost, collective and group of the Workload
//   emit_training  the ops of every worker from that plan: the pipeline order (pipeline_ops.hpp, whose
//                  activation-exchange hook sends and receives between stages), the gradient-sync steps at the
//                  points the hook names, the tied-embedding all-reduce, the optimizer step
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
// Context parallelism (cp > 1): workload/context_parallel.hpp; each stage has dp * cp replicas, gradients are
// reduced over all of them. Rank order: parallelism.rank_order (tp fastest; Megatron-Core's default
// tp-cp-dp-pp, which without cp is Megatron's tp, dp, pp).
#include <memory>
#include <vector>

#include "llmsim/hardware/compute_model.hpp"
#include "llmsim/scenario/scenario.hpp"
#include "llmsim/strategy/training_strategies.hpp"
#include "llmsim/workload/chunk_passes.hpp"
#include "llmsim/workload/context_parallel.hpp"
#include "llmsim/workload/gradient_sync.hpp"
#include "llmsim/workload/memory.hpp"
#include "llmsim/workload/moe_exchanges.hpp"
#include "llmsim/workload/moe_plan.hpp"
#include "llmsim/workload/pipeline_ops.hpp"
#include "llmsim/workload/program.hpp"

namespace llmsim::workload {

/// Where the model and the ranks are: pp stages of v local chunks each (pp * v global model chunks), dp * cp
/// replicas of each stage (replica c * dp + d: cp rank c, data-parallel index d), one worker per (stage,
/// replica) placed by parallelism.rank_order, ep consecutive replicas (same cp rank) forming an
/// expert-parallel group.
struct TrainingLayout {
  int pp = 1, dp = 1, tp = 1, ep = 1, v = 1, chunks = 1, cp = 1;
  int replicas = 1;                 ///< dp * cp per stage
  int simulated_dp = 1;             ///< dp indices with workers (workload/replica_fold.hpp); dp unless folded
  std::vector<int> layers_of;       ///< [global chunk] transformer layers
  std::vector<int> first_layer_of;  ///< [global chunk] model layer index of its first layer
  std::vector<int> owner;           ///< [global chunk] stage holding it
  std::vector<int> stage_of_layer;  ///< [model layer] stage holding it
  std::vector<std::vector<int>> chunk_of;  ///< [stage][local chunk] global chunk
  /// Whether replica c * dp + d has workers (d < simulated_dp).
  bool simulated(int replica) const { return replica % dp < simulated_dp; }
  /// The worker of (stage, replica), -1 for a replica folded away.
  int worker_of(int stage, int replica) const {
    if (!simulated(replica)) return -1;
    return (stage * cp + replica / dp) * simulated_dp + replica % dp;
  }
};

/// The first global rank of tp group (cp rank c, dp index d, stage): tp times the group's position in
/// parallelism.rank_order (e.g. "tp-cp-dp-pp", fastest first).
int first_rank(const scenario::Scenario& s, const TrainingLayout& l, int c, int d, int stage);

struct StagePlan {
  int stage = 0;
  int layers = 0;          ///< transformer layers on this stage (all its chunks)
  double params = 0;       ///< parameters per GPU
  int max_in_flight = 0;   ///< (micro-batch, chunk) activation sets held at once
  MemoryBreakdown memory;  ///< per GPU
  std::vector<strategy::PipelineTask> order;  ///< the schedule's tasks of this stage, per iteration
  int optimizer_cost = -1;                    ///< ComputeCost of the optimizer step
  GradientSyncOps sync;                       ///< what the gradient-sync hook adds to each step
};

struct TrainingPlan {
  Workload workload;         ///< costs, collectives, groups and workers; the ops after emit_training
  std::vector<StagePlan> stages;
  int micro_batches = 0;     ///< per pipeline per iteration
  int virtual_stages = 1;
  double model_flops = 0;    ///< per iteration, whole job: 3x forward FLOPs (no recomputation)
  double hardware_flops = 0; ///< per iteration, whole job: FLOPs executed, recomputation included
  double tokens = 0;         ///< per iteration
  MoePlan moe;               ///< routing, placement and traffic of the MoE layers (empty for dense models)
  TrainingLayout layout;
  std::vector<std::vector<ChunkPasses>> passes;  ///< [ep rank][global chunk]
  std::vector<int> offload_cost;                 ///< [global chunk] ComputeCost of an activation copy to host
  std::shared_ptr<const ActivationExchange> activations;  ///< between pipeline stages
  bool p2p_overlapped = false;  ///< parallelism.overlap_p2p_comm as applied (its schedule hosts it, pp > 1)
  MoeExchanges exchanges;
  CpExchanges cp;
  std::vector<int> tied_embedding;  ///< [replica] CollectiveSpec of the tied-embedding all-reduce, -1 none
  /// The specs of exchange `key` (a MoE or a context-parallel key, chunk_passes.hpp) of `replica` on `stage`.
  const std::vector<int>& exchange_specs(int stage, int replica, int key) const {
    return is_cp_exchange_key(key) ? cp.of(stage, replica, key) : exchanges.of(stage, replica, key);
  }
};

/// The plan of `s` with its strategies; workers without ops. Throws ScenarioError when
/// network.collective_algorithm cannot run the dp collective.
TrainingPlan plan_training(const scenario::Scenario& s, const hardware::ComputeModel& cm,
                           const strategy::TrainingStrategies& strategies);
/// Fills the ops of every worker of `plan` (made by plan_training with `schedule`).
void emit_training(TrainingPlan& plan, const strategy::PipelineSchedule& schedule);
/// plan_training, then emit_training.
TrainingPlan build_training(const scenario::Scenario& s, const hardware::ComputeModel& cm,
                            const strategy::TrainingStrategies& strategies);

}  // namespace llmsim::workload
