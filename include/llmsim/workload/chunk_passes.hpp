#pragma once
// Unit-level decomposition of the passes of a model chunk — what the braided STP schedule interleaves
// (Qi et al., "Synergistic Tensor and Pipeline Parallelism", arXiv 2510.27257): each pass of one chunk for one
// micro-batch is a chain of segments; a segment is a block of kernels followed by at most one tensor-parallel
// collective that the next segment of the same pass depends on.
//
//   forward F:      per layer [attention] -> AR, [MLP] -> AR; the embedding first ([embedding] -> AR), the
//                   head last ([final norm, logits, loss], no collective)
//   input B:        head first ([head dgrad] -> AR); per layer in reverse [MLP dgrad] -> AR, [attention dgrad]
//                   -> AR; embedding backward last. Full recomputation replays the layer's forward segments
//                   (with their ARs) before them; selective puts the attention core in front of the attention
//                   dgrad.
//   weight W:       per layer [MLP wgrad], [attention wgrad], no collective; the head's wgrad first
//   backward B+W:   like B with each unit's wgrad after its dgrad (schedules that do not split the backward)
//
// Each AR is a ring all-reduce of b*s*h elements over NVLink (collectives/ring.hpp, calibrated bandwidth), or
// an all-gather + reduce-scatter of the same bytes with sequence parallelism (Korthikanti et al. 2022).
// tp_variant "fal": a layer after the model's first is one unit [attention + MLP] -> AR per pass.
// With scatter/gather p2p a chunk that receives activations (gradients) starts its F (B, B+W) by all-gathering
// them over NVLink (blocking; Narayanan et al. SC'21 Sec. 4.1).
//
// parallelism.tp_comm_overlap sets how much of a collective a pass hides by itself:
//   none       every collective blocks;
//   wgrad      in B+W, a unit's input-gradient AR runs beside the wgrad GEMM of its column-parallel layer
//              (QKV, FFN up) — Megatron's asynchronous tp all-reduce: exposed max(0, C - W_col). A split B has
//              no wgrad to hide behind (why ZB-V exposes twice the tp communication, STP README table);
//   pipelined  a unit's collective C and its GEMMs G are cut into n = tp pieces and pipelined (Wang et al.,
//              ASPLOS'23, Sec. 4): together (n-1)/n*max(G, C) + (G + C)/n, so C is exposed by that minus G.
// Context parallelism (parallelism.cp > 1, workload/context_parallel.hpp) splits the attention unit in three:
// [norm, QKV] (its input-gradient AR backward), the attention core, [projection, dropout + residual] -> AR.
//   ring     the core's KV exchange starts before it and runs beside its first (cp-1)/cp; its last 1/cp waits
//            for the exchange (the backward likewise with the KV + dKV exchange), so the pass takes
//            max(core, core/cp + exchange): ring attention's double-buffered steps (Liu et al. 2023, Sec. 3)
//   ulysses  Q, K, V all-to-all after QKV, the output's all-to-all after the core; the backward mirrors them
// A pass that runs alone takes its fused cost; a braided pair (strategy::PipelineTask::braided) runs the
// segments of two passes alternately so each collective overlaps the other pass's compute.
#include <vector>

#include "llmsim/hardware/compute_model.hpp"
#include "llmsim/scenario/scenario.hpp"
#include "llmsim/strategy/moe_pipeline.hpp"
#include "llmsim/workload/moe_plan.hpp"
#include "llmsim/workload/program.hpp"

namespace llmsim::workload {

struct Segment {
  int compute = -1;     ///< ComputeCost index: the kernels (and any blocking in-node transfer)
  int collective = -1;  ///< ComputeCost index of the tp collective after it (TpComm), -1 when none
  double hidden = 0;    ///< [s] of that collective hidden behind the segment's own wgrad when the pass runs alone
  /// MoE all-to-all after the segment (and after its tp collective): a key (moe_exchange_key) the workload maps
  /// to a network collective of the expert-parallel group; -1 when none.
  int exchange = -1;
  /// A pipelined MoE part (strategies.moe_pipeline): the segment runs `repeat` times, once per chunk of the
  /// tokens; the exchange before it is queued `repeat` times and each run waits for its own chunk.
  int repeat = 1;
  /// The exchange runs beside the next segment of the chain, which does not wait for it; the segment after
  /// that does (ring attention's KV pass beside the attention kernels, workload/context_parallel.hpp).
  bool overlapped = false;
  /// With MoeLayout::gradient_chunk_bytes > 0: the gradients of model layer `gradients_of_layer` are final once
  /// this (weight-gradient) segment has run; -1 otherwise.
  int gradients_of_layer = -1;
  /// ZeRO-3 (training.zero_stage 3): the pass needs model layer `params_of_layer`'s gathered parameters from
  /// this segment on (the first segment of each layer's forward, input-gradient and whole backward; a chunk's
  /// embedding and head count with its first and last layer); -1 otherwise.
  int params_of_layer = -1;
  /// The host synchronises with the GPU before queuing `exchange` (a dropless dispatcher's token counts).
  bool host_sync = false;
};

/// A block of the chain run alone: wait for the exchanges `waits` (keys, one instance each, in order), compute
/// (-1: nothing), then queue the exchanges `starts`.
struct Piece {
  int compute = -1;
  std::vector<int> waits, starts;
  int gradients_of_layer = -1;  ///< the block ends the backward of this model layer (Segment::gradients_of_layer)
  int params_of_layer = -1;     ///< the block starts with a segment needing this layer's parameters (ZeRO-3)
  bool host_sync = false;       ///< the host synchronises with the GPU before queuing `starts`
};

struct PassChain {
  std::vector<Segment> segments;  ///< in execution order
  std::vector<Piece> fused;       ///< the chain run alone: blocks between network exchanges
};

/// The four all-to-alls of MoE layer number `moe_layer` (0-based among the model's MoE layers).
enum class Exchange { Dispatch = 0, Combine = 1, CombineGrad = 2, DispatchGrad = 3 };
inline int moe_exchange_key(int moe_layer, Exchange e) { return moe_layer * 4 + static_cast<int>(e); }

struct ChunkPasses {
  PassChain forward, input, weight, backward;  ///< F, B, W and B+W of one micro-batch
};

/// The passes of every global model chunk (`layers_of_chunk[j]` transformer layers; chunk 0 holds the
/// embedding, the last chunk the head), appending their ComputeCosts to `costs`. With a MoE plan, its MoE
/// layers run as seen by expert-parallel rank `ep_rank`: attention -> AR; [norm, router, shared experts,
/// permutation] -> dispatch; [the rank's experts on their tokens, un-permutation] -> AR; combine; the backward
/// mirrors it (combine-gradient exchange, experts' dgrad -> AR -> dispatch-gradient exchange, ...). With
/// layout.chunks = R > 1 the experts' segments are one chunk's work (1/R of each expert's tokens) repeated R
/// times; with layout.attention_in_pipeline the attention and gating also run as R segments of 1/R of the
/// micro-batch, chunk c's dispatch queued right after its gating (and in the backward chunk c's attention
/// gradient right after its dispatch-gradient exchange). With layout.gradient_chunk_bytes > 0 or ZeRO-3 the
/// last segment of each layer's backward (or weight gradient) carries gradients_of_layer and ends a fused block;
/// the head's backward carries model.transformer_layers() (the output layer's gradients; an MTP layer, after the
/// model's last, runs between its input segment and the shared head). With ZeRO-3 each layer's first
/// segment of a pass that uses its weights carries params_of_layer and starts a fused block.
std::vector<ChunkPasses> build_chunk_passes(const scenario::Scenario& s, const hardware::ComputeModel& cm,
                                            const std::vector<int>& layers_of_chunk, std::vector<ComputeCost>& costs,
                                            const MoePlan* moe = nullptr, int ep_rank = 0,
                                            const strategy::MoeLayout& layout = {});

}  // namespace llmsim::workload
