#pragma once
// Gradient-sync hook of the training workload: what a pipeline stage does with its gradients and parameters
// between the backward and the next forward — the collectives (with their bytes, kind and group), compute ops
// beside them, where in a stage's step each one goes, and the memory the weights, gradients and optimizer state
// take. The plan (workload/training.hpp) asks the hook once per stage; the emitter places its steps.
//
// Users today (make_gradient_sync):
//   data-parallel all-reduce   zero_stage 0: each local chunk's gradients in buckets of training.grad_bucket_MB
//                              (Megatron's DDP buckets; fp32 gradients for bf16 training, else the training
//                              precision), started after the chunk's last backward with overlap_grad_reduce,
//                              else after the pipeline
//   ZeRO                       stages 1-3 (Rajbhandari et al., SC'20, Sec. 5): the buckets are reduce-scatters;
//                              stages 1-2 all-gather the updated parameters after the optimizer step; stage 3
//                              runs as FSDP and DeepSpeed do (Zhao et al., PyTorch FSDP, VLDB'23, Sec. 3.3-3.4):
//                              each layer's parameters are all-gathered before each pass that uses them (forward,
//                              backward), the next layer's gather started as this one is waited for (prefetch
//                              one layer ahead), and each layer's gradients reduce-scattered right after its
//                              backward; the states are sharded over dp as memory.hpp says, plus the two layers
//                              gathered at once (gathered_bytes)
//   per-layer chunks           FlowMoE (MoeLayout::gradient_chunk_bytes > 0): each layer's gradients as S_p-byte
//                              chunks started right after that layer's backward, yielding to all-to-alls
// Experts' gradients go over the dp/ep replicas holding the same experts, the dense ones over all dp replicas.
// Later users (gradient compression, other sharding schemes) are new GradientSync classes: their own steps
// (a compute op before a collective), bytes and state memory.
#include <map>
#include <memory>
#include <vector>

#include "llmsim/scenario/scenario.hpp"
#include "llmsim/strategy/moe_pipeline.hpp"
#include "llmsim/workload/memory.hpp"
#include "llmsim/workload/model_parts.hpp"
#include "llmsim/workload/program.hpp"

namespace llmsim::workload {

/// One step: an optional compute op (ComputeCost index, -1 none) on the compute stream, then a collective
/// (CollectiveSpec index) started.
struct SyncStep {
  int compute = -1;
  int collective = -1;
};

/// The gradients of one pipeline stage, as the hook sees them (parameter counts per GPU).
struct StageGradients {
  std::vector<std::vector<GradientPart>> parts;  ///< [local chunk] by when they are final
  std::vector<double> chunk_params;              ///< [local chunk] all parameters of the chunk
  double params = 0;                             ///< the stage's
  int dp_group = -1;                             ///< Workload::groups index of the stage's dp replicas
  /// [ep rank] workers of the dp/ep replicas holding the same experts (empty when dp/ep is 1)
  std::vector<std::vector<int>> expert_members;
  int expert_group_represents = 0;  ///< replicas each expert group stands for when folded (0: its size)
};

/// Where the hook's steps go in a stage's step; `at_chunk_end` and `at_layer_end` per ep rank of the replica.
/// Started steps are waited for (in start order) before the optimizer; `after_optimizer` steps are blocking
/// (started and waited for at once); a `layer_gather` is waited for where a pass starts needing the layer's
/// parameters, having been started there or (prefetch) where the same pass started needing the layer before.
struct GradientSyncOps {
  std::vector<std::vector<std::vector<SyncStep>>> at_chunk_end;  ///< [ep rank][local chunk] gradients final
  std::vector<std::map<int, std::vector<SyncStep>>> at_layer_end;  ///< [ep rank] model layer -> after its backward
  bool overlap = true;  ///< at_chunk_end at the chunk's last backward; false: all after the pipeline
  std::map<int, int> layer_gather;  ///< ZeRO-3: model layer -> CollectiveSpec of its parameters' all-gather
  std::vector<SyncStep> after_optimizer;
};

class GradientSync {
 public:
  virtual ~GradientSync() = default;
  /// Adds the stage's groups, collectives and compute costs to `w`; returns where they go.
  virtual GradientSyncOps plan(const StageGradients& g, Workload& w) const = 0;
  /// Weights, gradients and optimizer state per GPU holding `params` parameters (no activations).
  virtual MemoryBreakdown state_memory(double params) const = 0;
  /// Parameters whose optimizer step a GPU holding `params` runs (its shard).
  virtual double optimizer_params(double params) const = 0;
  /// Bytes of parameters held gathered beyond the shard at any time (ZeRO-3: the layer in use and the one
  /// prefetched, the two largest of the stage); 0 for the others.
  virtual double gathered_bytes(const StageGradients&) const { return 0; }
};

/// The hook of `s` (training.zero_stage, overlap_grad_reduce, grad_bucket_MB, network.collective_algorithm)
/// with the MoE pipeline's `layout` (per-layer chunks).
std::unique_ptr<GradientSync> make_gradient_sync(const scenario::Scenario& s, const strategy::MoeLayout& layout);

}  // namespace llmsim::workload
