#pragma once
// MeCeFO's work on the neighbour that does both its own and a failed node's micro-batches (Hu et al.,
// NeurIPS 2025, arXiv 2510.16415, Sec. 3), from the model's kernels (model/transformer.hpp), per GPU of the
// neighbour and training step. With F(k), B(k), W(k) the forward, activation-gradient and weight-gradient FLOPs
// of kernel list k, att/ffn/head the attention unit, the MLP unit and the output head, L layers, m micro-batches
// per step, T = b*s tokens:
//   normal micro-batch      N = L (F+B+W)(att) + L (F+B+W)(ffn) + (F+B+W)(head)
//   MeCeFO micro-batch      E = L F(att) + L [2 F(ffn) + B(ffn) + R] + (F+B+W)(head)
//                           (full forward; attention skipped in the backward; the FFN forward recomputed, its input
//                           gradient exact, its weight gradients rank r: for each FFN matrix d_in x d_out,
//                           R += 2 T r (d_in + d_out) + 2 r d_in d_out for (X^T (dY P)) P^T)
//   SVD refresh per step    S = L sum_FFN 4 d_in d_out r / tau (a rank-r randomized SVD every tau steps)
//   compute multiplier      (2 m E + S) / (m N): the neighbour runs both its own and the failed node's micro-batches
//                           the MeCeFO way. Its attention gradients are averaged over the data-parallel ranks that
//                           are neither failed nor covering (Sec. 3.2, as the paper's summaries state it: papernotes
//                           NeurIPS2025 MeCeFO, and the OpenReview summary in docs/paper-settings.md), so it computes
//                           no attention backward for its own micro-batches either, and its FFN weight gradients are
//                           the low-rank ones for both (the algorithm branches on the node's role, not the batch)
//   extra memory            L T h e (the FFN inputs kept for recomputation, e bytes per element; no attention
//                           activations) + L sum_FFN 4 d_out r (fp32 projections P); an upper bound, since the
//                           attention activations of the neighbour's own micro-batches, no longer kept, are not
//                           subtracted
// FLOPs per tp rank (FFN matrices are h x f/tp and f/tp x h). A MoE layer's "ffn" is its MoE FFN (router, shared
// experts, permutation, the routed experts on T top_k token copies, combine; model/moe.hpp): its R sums
// 2 (T top_k) r (d_in + d_out) over the routed tokens and 2 r d_in d_out over the experts / ep local experts (and
// the shared experts on all T tokens), and S and the projections count every local expert's matrices.
#include "llmsim/scenario/scenario.hpp"

namespace llmsim::strategy {

struct MeCeFoCosts {
  double normal_step = 0;     ///< m N [FLOP]
  double covering_step = 0;   ///< 2 m E + S: the covering neighbour's step [FLOP]
  double extra_memory = 0;    ///< [bytes]
  double compute_multiplier() const { return covering_step / normal_step; }
};

MeCeFoCosts mecefo_costs(const scenario::Scenario& s, int rank, int refresh_steps);

}  // namespace llmsim::strategy
