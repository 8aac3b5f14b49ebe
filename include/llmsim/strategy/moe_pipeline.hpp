#pragma once
// MoE pipelining family (`strategies.moe_pipeline`): how a MoE layer's attention, gating, dispatch, experts,
// combine and the data-parallel gradient all-reduce overlap.
//   vanilla-ep  dispatch, then all experts, then combine (Megatron's all-to-all dispatcher)
//   tutel       the tokens of the layer in `chunks` = R parts: all R dispatch all-to-alls are queued on the EP
//               group's communication stream (they run one after another), expert chunk c starts when dispatch
//               c has arrived and its combine is queued right after, so expert compute overlaps the all-to-alls
//               of the other chunks (Hwang et al., Tutel, MLSys 2023, adaptive pipelining degree); the backward
//               pipelines the gradient exchanges the same way. Expert GEMMs of a chunk see 1/R of the tokens.
//   schemoe     tutel's R-chunk pipeline with ScheMoE's Pipe-A2A (Shi et al., EuroSys 2024, Sec. 5): every
//               all-to-all is split into its intra-node and its inter-node part, run on two streams, so the
//               intra-node part of chunk c+1 proceeds while the inter-node part of chunk c is still on the wire.
//               (ScheMoE's optional ZFP compression of the exchanged tokens is not modelled: its default is off.)
//   flowmoe     FlowMoE (Gao et al., NeurIPS 2025, arXiv 2510.00207, Sec. 3-4): attention and gating join the
//               R-chunk pipeline (chunk c's dispatch starts while chunk c+1's attention computes; forward and
//               backward; a block's chunks are joined before the next block, as FlowMoE's code concatenates
//               them), and each layer's gradients are all-reduced, as soon as that layer's backward ends, in
//               chunks of S_p bytes that a rank's stream starts only while none of the rank's all-to-alls is
//               pending (all-to-all has strict priority; a started chunk runs to its end). S_p is given or
//               "auto": searched by golden section over [128 KiB, 16 MiB] (run/chunk_search.hpp) — the range of
//               FlowMoE's Bayesian optimisation (ZJU-CNLAB/FlowMoE dist_train/train_w_FlowMoE_BO_V2.py).
//   streaming   Mozart's streaming of tokens and expert weights on a moe-chiplet system (kind "moe-chiplet"):
//               micro-batches pipelined through the layers, expert weights read hottest first and prefetched
//               while the previous expert computes (workload/moe_chiplet.hpp)
#include <memory>

#include "llmsim/strategy/registry.hpp"

namespace llmsim::strategy {

/// How a MoE layer of a training run is cut and scheduled: what the workload builds.
struct MoeLayout {
  int chunks = 1;                      ///< R: parts the tokens of a MoE layer are pipelined in (1 = none)
  bool attention_in_pipeline = false;  ///< attention and gating run per chunk too (FlowMoE)
  bool split_all_to_all = false;       ///< intra- and inter-node parts of an all-to-all on two streams (ScheMoE)
  /// S_p [bytes]: > 0 = per-layer data-parallel gradient chunks with all-to-all priority (FlowMoE);
  /// 0 = the usual gradient buckets (training.grad_bucket_bytes, started after a model chunk's backward).
  double gradient_chunk_bytes = 0;
};

/// The bounds of FlowMoE's S_p search [bytes] (its Bayesian optimisation's search space).
constexpr double kMinGradientChunkBytes = 128.0 * 1024, kMaxGradientChunkBytes = 16.0 * 1024 * 1024;

class MoePipeline {
 public:
  virtual ~MoePipeline() = default;
  virtual MoeLayout layout() const = 0;
  /// Mozart's streaming on a moe-chiplet system (workload/moe_chiplet.hpp).
  virtual bool streaming() const { return false; }
  /// S_p is "auto": the run searches it (run/chunk_search.hpp) and rebuilds with the best value.
  virtual bool searches_gradient_chunk() const { return false; }
};

using MoePipelineRegistry = Registry<MoePipeline>;

std::unique_ptr<MoePipeline> make_moe_pipeline(const scenario::Scenario& s);

}  // namespace llmsim::strategy
