#pragma once
// Pipeline-schedule family (`strategies.pipeline_schedule`): the order in which one pipeline stage runs the
// forward and backward passes of its micro-batches and model chunks. The training workload turns this order
// into a Program (compute, send, recv); the schedule knows nothing about costs or the network.
#include <memory>
#include <string>
#include <vector>

#include "llmsim/strategy/registry.hpp"

namespace llmsim::strategy {

struct PipelineTask {
  /// Backward: the whole backward; BackwardInput (B, activation gradient, on the critical path) and
  /// BackwardWeight (W, weight gradient, deferrable) split it as in zero-bubble schedules.
  enum class Pass { Forward, Backward, BackwardInput, BackwardWeight };
  Pass pass;
  int micro_batch;  ///< 0 .. m-1
  int chunk;        ///< local model chunk on this stage, 0 .. chunks_per_stage()-1
  /// Runs braided with the task before it: the two form one composite task whose units alternate so that each
  /// tp collective of one overlaps compute of the other (STP, workload/chunk_passes.hpp). Their inputs are
  /// received before and their outputs sent after the pair.
  bool braided = false;
  /// Same (pass, micro-batch, chunk): the task's identity, whether braided or not.
  bool operator==(const PipelineTask& o) const {
    return pass == o.pass && micro_batch == o.micro_batch && chunk == o.chunk;
  }
};

struct StageContext {
  int pp = 1;              ///< pipeline stages
  int stage = 0;           ///< this stage, 0 .. pp-1
  int micro_batches = 1;   ///< m, per pipeline per iteration
};

class PipelineSchedule {
 public:
  virtual ~PipelineSchedule() = default;
  /// Model chunks per stage (v): 1 for GPipe and 1F1B, the number of virtual stages when interleaved.
  virtual int chunks_per_stage() const = 0;
  /// The global model-chunk index (0 .. pp*v-1, input side first) held by `stage` as its local `chunk`.
  /// Default: Megatron's interleaved placement, chunk c of stage s is model chunk c*pp + s.
  virtual int model_chunk(int pp, int stage, int chunk) const { return chunk * pp + stage; }
  /// Smallest number of micro-batches per pipeline the schedule can run with `pp` stages.
  virtual int min_micro_batches(int /*pp*/) const { return 1; }
  /// The micro-batches per pipeline must be a multiple of this with `pp` stages (interleaved 1F1B: pp).
  virtual int micro_batch_multiple(int /*pp*/) const { return 1; }
  /// Local chunk whose activations go to host memory after each forward and come back before its backward
  /// (activation offload), or -1.
  virtual int offloaded_chunk() const { return -1; }
  /// Whether parallelism.overlap_p2p_comm applies: Megatron-Core overlaps pipeline sends with compute only in its
  /// interleaved schedule with virtual stages > 1 (megatron/training/arguments.py sets overlap_p2p_comm False
  /// without them).
  virtual bool hosts_p2p_overlap() const { return false; }
  /// Every forward and backward task of `ctx.stage`, in execution order; each (pass, micro-batch, chunk)
  /// appears exactly once.
  virtual std::vector<PipelineTask> stage_order(const StageContext& ctx) const = 0;
};

/// Largest number of (micro-batch, chunk) forward activation sets a stage holds at once under `order`
/// (each forward adds one, a whole backward or a B frees one — the zero-bubble and STP papers' accounting, which
/// leaves out the GEMM inputs and output gradients a deferred W still holds; a braided pair counts once, after
/// both: one pass frees layer by layer what the other allocates)
/// — the activation-memory multiplier of the schedule.
/// With `offloaded_chunk` >= 0, at most two sets of that chunk count (the one being copied out after its
/// forward and the one copied back for the next backward); the others are in host memory.
int max_in_flight(const std::vector<PipelineTask>& order, int offloaded_chunk = -1);

/// V-shaped placement of two chunks per stage (ZB-V, STP): stage s holds model chunks s and 2p-1-s, so the
/// forward runs down the stages and back up, and the first and last chunk share stage 0.
class VShapedSchedule : public PipelineSchedule {
 public:
  int chunks_per_stage() const override { return 2; }
  int model_chunk(int pp, int stage, int chunk) const override { return chunk == 0 ? stage : 2 * pp - 1 - stage; }
};

using PipelineScheduleRegistry = Registry<PipelineSchedule>;

/// Transformer layers of each global model chunk (0 .. pp*v-1), the model's MTP layers in the last chunk:
/// parallelism.pipeline_layout's when given (the first and the last chunk may hold none: the embedding or the loss
/// alone); else pipeline_split embedding-loss's; else the last stage's v chunks share
/// parallelism.last_stage_layers, the other chunks split the remaining layers evenly (all even when "auto").
/// Throws ScenarioError when the layers do not divide that way.
std::vector<int> chunk_layers(const scenario::Scenario& s, const PipelineSchedule& schedule);

/// Builds the schedule named in the scenario. Throws ScenarioError (path /strategies/pipeline_schedule/...)
/// when its parameters do not fit the scenario.
std::unique_ptr<PipelineSchedule> make_pipeline_schedule(const scenario::Scenario& s);

}  // namespace llmsim::strategy
