#pragma once
// Fused attention (training.attention "flash": FlashAttention-2/3, cuDNN fused attention) of one micro-batch on
// one tensor-parallel rank: b sequences of s tokens, a/t query heads and kv/t key-value heads of dimension d,
// e = bytes per element of training.precision.
//   forward   FLOPs 4 b (a/t) s^2 d, halved with the causal mask (the kernel skips the fully masked blocks;
//             Dao 2023, FlashAttention-2, Sec. 3.1.1 "Causal masking"; the same flops() counts causal as half);
//             with multi-head latent attention (keys d wide, values dv) 2 b (a/t) s^2 (d + dv)
//             bytes e (b s (a/t) (d + dv) + b s (kv/t) (d + dv)) + 4 b (a/t) s: read Q, K, V, write O and the fp32
//             logsumexp per query row (Dao et al. 2022, FlashAttention, Algorithm 1; FA2 Algorithm 1, line 13);
//             no s^2 tensor reaches HBM
//   backward  2.5x the forward FLOPs (five GEMMs per block instead of two: the scores are recomputed inside the
//             kernel, then dV, dP, dQ, dK; the FlashAttention benchmarks count the backward as 2.5x the
//             forward: Dao-AILab/flash-attention benchmarks/benchmark_flash_attention.py, flops()), 2x the
//             forward bytes (reads Q, K, V, O, dO and the logsumexp, writes dQ, dK, dV; FA2 Algorithm 2)
// Context parallelism (cp > 1, s = seq_len / cp tokens per rank; Liu et al. 2023, Ring Attention; Jacobs et al.
// 2023, DeepSpeed-Ulysses): each rank does 1/cp of the causal work, 4 b (a/t) s^2 d cp / 2 FLOPs.
//   ring     cp blocks of s queries x s keys (with the 2cp-chunk pairing every rank gets the same share of the
//            causal triangle; Megatron-Core/TE), so the efficiency curve is read at s; K and V of all cp chunks
//            are read once each: the kv term of the bytes is x cp
//   ulysses  the whole sequence for a/(t cp) heads after the all-to-all: the curve is read at s cp; the same
//            bytes as without cp per rank
// Time: t = max(F / (P e_f(s)), B / (W e_mem)) + o with e_f(s) = e_max s / (s + s_half), forward and backward
// each with their own (e_max, s_half): hardware.calibration.flash_* (hardware/compute_model.hpp).
#include "llmsim/model/transformer.hpp"

namespace llmsim::model {

/// The fused attention kernel of one layer's forward (shape as above).
Kernel fused_attention_forward(const LayerShape& x);
/// Its backward kernel (the scores recomputed inside it).
Kernel fused_attention_backward(const Kernel& forward);

}  // namespace llmsim::model
