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

/// Kernels of one layer for `st` (LayerShape's b and s are ignored; t, h, a, kv, d, f, e are used).
std::vector<Kernel> inference_layer(const LayerShape& x, const InferenceStep& st);
/// Input embedding (first stage): a gather of T rows of h.
std::vector<Kernel> inference_embedding(const LayerShape& x, const InferenceStep& st);
/// Final norm and logits GEMM of the sampled tokens (vocabulary split over tp) and sampling (last stage).
std::vector<Kernel> inference_head(const LayerShape& x, const InferenceStep& st);

/// KV-cache bytes of one token on one rank per layer: 2 (K and V) * max(1, kv/t) * d * e.
double kv_bytes_per_token_layer(const LayerShape& x);

}  // namespace llmsim::model
