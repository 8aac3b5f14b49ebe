#pragma once
// MoE pipelining family (`strategies.moe_pipeline`): how a MoE layer's dispatch, experts and combine overlap.
//   vanilla-ep  dispatch, then all experts, then combine (Megatron's all-to-all dispatcher)
//   tutel       the tokens of the layer in `chunks` = R parts: all R dispatch all-to-alls are queued on the EP
//               group's communication stream (they run one after another), expert chunk c starts when dispatch
//               c has arrived and its combine is queued right after, so expert compute overlaps the all-to-alls
//               of the other chunks (Hwang et al., Tutel, MLSys 2023, adaptive pipelining degree); the backward
//               pipelines the gradient exchanges the same way. Expert GEMMs of a chunk see 1/R of the tokens.
//   streaming   Mozart's streaming of tokens and expert weights on a moe-chiplet system (kind "moe-chiplet"):
//               micro-batches pipelined through the layers, expert weights read hottest first and prefetched
//               while the previous expert computes (workload/moe_chiplet.hpp)
// FlowMoE (attention and gating in the pipeline, prioritised all-reduce chunks) and ScheMoE come later.
#include <memory>

#include "llmsim/strategy/registry.hpp"

namespace llmsim::strategy {

class MoePipeline {
 public:
  virtual ~MoePipeline() = default;
  /// R: parts the tokens of a MoE layer are pipelined in (1 = no pipelining).
  virtual int chunks() const = 0;
  /// Mozart's streaming on a moe-chiplet system (workload/moe_chiplet.hpp).
  virtual bool streaming() const { return false; }
};

using MoePipelineRegistry = Registry<MoePipeline>;

std::unique_ptr<MoePipeline> make_moe_pipeline(const scenario::Scenario& s);

}  // namespace llmsim::strategy
