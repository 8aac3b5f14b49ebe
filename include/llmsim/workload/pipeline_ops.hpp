#pragma once
// Expands a stage's pipeline order (strategy::PipelineSchedule) into ops for one pipeline replica:
// for each task, Recv the input from the stage producing the previous chunk (forward) or the next chunk
// (backward, or its activation-gradient part B) when that stage is another one, Compute, then Send to the
// consumer. A weight-gradient task (W) only computes. A task alone is one Compute of its pass's fused cost; a
// braided pair (PipelineTask::braided) receives both inputs, then alternates the segments of the two passes
// (workload/chunk_passes.hpp), handing over after each segment that communicates (segments without a collective
// or exchange run on with their pass), each tp collective queued on the communication stream (CommAsyncOp) and
// waited for (WaitEventOp) only before the next segment of its own pass, then sends both outputs.
// Activation offload (PipelineSchedule::offloaded_chunk): each forward of that chunk is followed by a copy of
// its activations to host memory on the device-to-host stream; the copy back runs on the host-to-device
// stream during the composite task before the backward that needs it (after the copy out has finished), and
// that backward waits for it — exposed time is filed as "offload".
// A MoE exchange (all-to-all of the expert-parallel group) after a segment is a CollectiveStartOp; the pass's next
// segment waits for it (CollectiveWaitOp) — in a braided pair the other pass computes meanwhile.
#include <functional>
#include <memory>
#include <vector>

#include "llmsim/strategy/pipeline_schedule.hpp"
#include "llmsim/workload/chunk_passes.hpp"
#include "llmsim/workload/program.hpp"

namespace llmsim::workload {

/// Activation-exchange hook: how a task gets its input activations (or their gradients) from the worker of
/// another stage before it computes, and hands its output on after. The pipeline's send/recv is PipelineP2p;
/// other exchanges (context parallelism's) are further implementations.
class ActivationExchange {
 public:
  virtual ~ActivationExchange() = default;
  virtual void receive(std::vector<Op>& ops, int from_worker, const PassStep& step) const = 0;
  /// `step` names the receiver's step (its pass, micro-batch and chunk).
  virtual void send(std::vector<Op>& ops, int to_worker, const PassStep& step) const = 0;
  /// Before every task's compute (after its receives), whether or not it receives or sends.
  virtual void before_compute(std::vector<Op>& /*ops*/, const PassStep& /*step*/) const {}
};

/// Point-to-point activations between consecutive stages: one RecvOp before, one SendOp of `bytes` per GPU after.
/// `overlapped` (Megatron-Core's overlap_p2p_comm, parallelism.overlap_p2p_comm): each send is left in flight and
/// waited for before the stage's next forward (activations) or backward (gradients) task computes, as
/// forward_backward_pipelining_with_interleaving waits for the previous step's handles; receives are eager in
/// either case (engine: permanent receivers).
class PipelineP2p final : public ActivationExchange {
 public:
  PipelineP2p(double bytes, bool overlapped) : bytes_(bytes), overlapped_(overlapped) {}
  void receive(std::vector<Op>& ops, int from_worker, const PassStep& step) const override {
    ops.push_back(recv_from(from_worker, step));
  }
  void send(std::vector<Op>& ops, int to_worker, const PassStep& step) const override {
    ops.push_back(send_to(to_worker, step, bytes_, overlapped_));
  }
  void before_compute(std::vector<Op>& ops, const PassStep& step) const override {
    if (overlapped_ && step.pass != Pass::BackwardWeight) ops.push_back(wait_sends(step.pass));
  }

 private:
  double bytes_;
  bool overlapped_;
};

struct PipelineWiring {
  int pp = 1;
  std::vector<int> owner;          ///< stage holding each global model chunk
  const std::vector<ChunkPasses>* passes = nullptr;  ///< per global chunk
  std::shared_ptr<const ActivationExchange> activations;  ///< between stages
  std::function<int(int stage)> worker;  ///< worker of a stage in this replica
  /// Per global chunk: ComputeCost index of copying one micro-batch's activations over the host link
  /// (category Offload); used for the schedule's offloaded chunk.
  std::vector<int> offload_cost;
  /// MoE: CollectiveSpec indices of an exchange key (chunk_passes.hpp) for this replica's expert-parallel group
  /// (two with ScheMoE's split all-to-all: started together, both waited for).
  std::function<const std::vector<int>&(int exchange)> exchange_specs;
};

/// Stage -> chunk owner table of `schedule` for pp stages.
std::vector<int> chunk_owners(const strategy::PipelineSchedule& schedule, int pp);

/// Called where a pass starts needing model layer `layer`'s parameters (Segment::params_of_layer, ZeRO-3), with
/// the next layer the same pass will need (-1: none), so the caller can wait for one gather and start the next.
using LayerParams = std::function<void(int layer, int next_layer)>;

/// Appends the ops of `order` for `stage`. `on_chunk_done(local_chunk)` is called right after the last
/// backward of each local chunk (its gradients are final), so the caller can append gradient collectives;
/// `on_layer_done(model_layer)` in the last backward of a chunk right after the block that ends that layer's
/// backward (pieces marked by MoeLayout::gradient_chunk_bytes or ZeRO-3; not in braided pairs);
/// `layer_params` before each block (or braided segment) that starts needing a layer's parameters.
void append_pipeline_ops(std::vector<Op>& ops, int stage, const std::vector<strategy::PipelineTask>& order,
                         const strategy::PipelineSchedule& schedule, const PipelineWiring& wiring,
                         const std::function<void(int local_chunk)>& on_chunk_done = {},
                         const std::function<void(int layer)>& on_layer_done = {},
                         const LayerParams& layer_params = {});

}  // namespace llmsim::workload
