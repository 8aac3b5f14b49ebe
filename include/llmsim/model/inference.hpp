#pragma once
// Per-operator arithmetic of one inference step (a batch of prefill chunks and decode tokens) of a dense
// decoder-only transformer on one tensor-parallel rank, without the tp all-reduces (two per layer, each of
// tokens x h elements, Shoeybi et al. 2019 Fig. 4). Shapes as model/transformer.hpp: h hidden, a heads of d,
// kv kv-heads, f FFN size, t = tp, e bytes per element; no dropout at inference.
//   GEMMs (QKV, output projection, FFN) run once over all T new tokens of the step (selective batching, Orca):
//     weights are read once per step, which makes a small decode batch memory-bound.
//   Prefill attention (FlashAttention-style, causal): a chunk of q new tokens after c cached ones computes
//     4 q (c + (q+1)/2) d FLOPs per head (QK^T and PV over the causal triangle) and reads its K/V once.
//   Decode attention (PagedAttention): each sequence reads 2 c kv d e bytes of KV cache per layer and computes
//     4 c d FLOPs per head; memory-bound (as an element-wise kernel of those bytes).
//   MoE FFN (InferenceMoe, experts split over tp as TensorRT-LLM's default MoE tensor parallelism): a router GEMM
//     of T x E x h, then the experts the T tokens reach: with uniform routing of top_k of E experts per token,
//     n = E (1 - (1 - top_k/E)^T) distinct experts are expected, each a GEMM of T top_k / n tokens that reads
//     that expert's weights once (so a decode step reads every expert's weights once T is large enough); the
//     tokens are copied to their experts' order before (T h read, T top_k h written) and summed back after.
#include <vector>

#include "llmsim/model/transformer.hpp"

namespace llmsim::model {

/// One step on one rank: new tokens, the prefill chunks, the decode sequences.
struct InferenceStep {
  struct Chunk {
    double tokens = 0;   ///< q new tokens
    double context = 0;  ///< c tokens already in its KV cache
  };
  std::vector<Chunk> prefill;
  double decode_seqs = 0;
  double decode_context = 0;  ///< sum over the decode sequences of the tokens in their KV cache
  double padding = 0;         ///< tokens computed for nothing (static batching pads prompts to the longest)
  double sampled = 0;         ///< tokens whose logits are computed (decodes and prefills that end this step)
  double tokens() const;      ///< all tokens through the GEMMs
};

/// The routed experts of a MoE layer (experts 0: a dense FFN of LayerShape::f).
struct InferenceMoe {
  double experts = 0, top_k = 1;
  double expert_f = 0;  ///< FFN size of one expert
};

/// The kernels of one layer for a step `st` come in two parts (LayerShape's b and s are ignored; t, h, a, kv, d,
/// f, e are used): the attention cores, one per prefill chunk and one for the decodes, which depend on the
/// contexts ...
std::vector<Kernel> inference_attention(const LayerShape& x, const InferenceStep& st);
/// ... and the others (norms, QKV, projections, the FFN, or the MoE FFN of `moe` when it has experts) for
/// st.tokens() tokens: they depend on the step only through its token count.
std::vector<Kernel> inference_token_kernels(const LayerShape& x, double tokens, const InferenceMoe& moe = {});
/// The MoE FFN part of inference_token_kernels for `tokens` tokens (router, permute, expert GEMMs, finalize).
std::vector<Kernel> inference_moe_ffn(const LayerShape& x, double tokens, const InferenceMoe& moe);
/// Expected distinct experts that T tokens reach (formula above); 0 for T = 0.
double active_experts(const InferenceMoe& moe, double tokens);
/// Input embedding (first stage): a gather of T rows of h.
std::vector<Kernel> inference_embedding(const LayerShape& x, const InferenceStep& st);
/// Final norm and logits GEMM of the sampled tokens (vocabulary split over tp) and sampling (last stage).
std::vector<Kernel> inference_head(const LayerShape& x, const InferenceStep& st);

/// KV-cache bytes of one token on one rank per layer: 2 (K and V) * max(1, kv/t) * d * e.
double kv_bytes_per_token_layer(const LayerShape& x);

}  // namespace llmsim::model
