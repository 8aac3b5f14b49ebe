#pragma once
// Per-GPU training memory (bytes), a first model refined by the memory-model issue:
// ZeRO shards over the dp * cp ranks holding the same parameters (Parallelism::dp_cp); s is a rank's tokens per
// sequence, seq_len / cp with context parallelism (ring attention's two in-flight KV chunks and Ulysses'
// head-sharded Q, K, V are transient buffers of one layer, not kept: not counted).
//   weights    P * e  / (dp with ZeRO-3)      (e = bytes of training.precision, model/precision.hpp: 2 for
//                                              bf16/fp16, 4 for fp32/tf32)
//              + under an FP8 recipe the cached FP8 weights of the linear layers and their transposes
//                (column-wise copies), 2 l bytes per linear-layer parameter (model/fp8.hpp; Megatron with TE
//                keeps the bf16 parameters, fp32 main gradients and fp32 Adam states as without FP8)
//   gradients  P * g  / (dp with ZeRO-2, 3)   (g = 4: Megatron accumulates bf16 gradients in fp32; else e)
//   optimizer  P * K / (dp with ZeRO-1..3)    (K = model::optimizer_state_bytes: Adam's m and v + fp32 master
//                                              weights for 16-bit training, K = 12 as in Rajbhandari et al. 2020,
//                                              Sec. 3.1; 8 for fp32 Adam; 4 / 0 for plain SGD; half of each with
//                                              training.optimizer_state_precision bf16)
//   activations per layer and micro-batch, Korthikanti et al. 2022 Sec. 4.1 term by term, for the model's own
//   shapes (their Table 2 is the GPT case: MHA, a 4h GeLU MLP, dropout, where N = 10 and T = 24):
//     N = 8 + 2m       replicated (split by t only with SP): QKV and FC1 inputs 2+2, two norm inputs 4, two
//                      dropout masks 1+1 (m = 1 with model.dropout, else 0)
//     T = 4 a d/h + 4 g d/h + c f/h   per tp rank: Q and the projection input 2+2 (a heads of d), K and V 2+2
//                      (g = kv heads, at least t), the FFN's kept intermediates (c = 4 GeLU: its input and
//                      output; c = 6 SwiGLU: gate, up and their product)
//     none:      s*b*h*(N + T/t + (2+3m)*a*s/(h*t))   with SP: s*b*h*((N+T)/t + (2+3m)*a*s/(h*t))
//                (softmax output; with dropout also its mask and output)
//     selective: s*b*h*(N + T/t)                      with SP: s*b*h*(N+T)/t
//     full:      2*s*b*h (the layer input only)       with SP: 2*s*b*h/t
//   fused attention (training.attention "flash") keeps no s^2 tensor: the 5*a*s/(h*t) terms go (as with
//     selective recomputation) and the softmax logsumexp, 4*b*a*s/t bytes (one fp32 per query row and head),
//     is kept instead (Dao et al. 2022, FlashAttention, Sec. 3.1)
//   an FP8 recipe keeps the inputs of the FP8 GEMMs in FP8 (l bytes instead of 2): QKV and FC1 inputs sbh
//     (sbh/t with SP), attention projection input (a d/h) sbh/t (unfused attention only: fused, the kernel keeps
//     it in 16 bits and Megatron-Core's projection saves that tensor, 2 bytes, or under delayed scaling also its
//     FP8 copy, 3 bytes: attention.py set_save_original_input), FC2 input (f/h) sbh/t (TE saves the FP8 copy its
//     wgrad reads); the rest (norm inputs, Q, K, V, GeLU input, masks) stays 16-bit. A MoE layer's experts keep
//     their GEMM inputs in FP8 too (TE's GroupedLinear, Megatron-Core's default): the k permuted copies of FC1's
//     input and the FC2 inputs of the routed (not under moe_act recomputation) and shared experts
//   Every kept tensor above counts 2 bytes per element (16-bit training); an fp32 or tf32 run keeps e = 4: all
//     terms but the 1-byte dropout masks and the fp32 logsumexp scale by e / 2.
//   times layers per chunk times the schedule's in-flight (micro-batch, chunk) sets; with full
//   recomputation one layer's full activations are live while it is recomputed.
//   A MoE layer (not fully recomputed) replaces the MLP's 2sbh input (2sbh/t with SP) and its c f/h sbh/t of FFN
//   intermediates by the k permuted token copies, 2k*sbh (2k*sbh/t with SP), and the intermediates of the
//   tokens' experts, c (k + shared) f_e/h sbh/t.
#include "llmsim/scenario/scenario.hpp"

namespace llmsim::workload {

struct MemoryBreakdown {
  double weights = 0, gradients = 0, optimizer = 0, activations = 0;
  double total() const { return weights + gradients + optimizer + activations; }
};

/// Activation bytes of one layer for one micro-batch on one tp rank (Korthikanti et al. 2022 Table 2).
double layer_activation_bytes(const scenario::Scenario& s, const std::string& recompute);
/// The same for a MoE layer (see above).
double moe_layer_activation_bytes(const scenario::Scenario& s, const std::string& recompute);
/// Activation bytes of one micro-batch of model layers [first, first + layers) (dense or MoE).
double chunk_activation_bytes(const scenario::Scenario& s, int first, int layers, const std::string& recompute);

/// Bytes of the cached FP8 weight copies of model layers [first, first + layers) on one GPU (0 without FP8);
/// with training.fp8_param_gather, net of the high-precision copies of those weights that it replaces.
double fp8_weight_copy_bytes(const scenario::Scenario& s, int first, int layers);
/// The same per GEMM weight parameter [bytes] (0 without FP8).
double fp8_copy_bytes_per_param(const scenario::Scenario& s);
/// Weights, gradients and optimizer state of `params` parameters on one GPU, sharded as training.zero_stage says
/// (activations 0). The data-parallel gradient-sync hooks' memory (workload/gradient_sync.hpp).
MemoryBreakdown state_memory(const scenario::Scenario& s, double params);
/// Activation bytes of `max_in_flight` (micro-batch, chunk) sets of `set_bytes` each, plus the one layer's full
/// activations live while it is recomputed (training.recompute "full").
double activation_memory(const scenario::Scenario& s, double set_bytes, int max_in_flight);
/// state_memory + activation_memory. `set_bytes`: activation bytes of one (micro-batch, chunk) set
/// (chunk_activation_bytes of the largest chunk).
MemoryBreakdown stage_memory(const scenario::Scenario& s, double params_per_gpu, double set_bytes, int max_in_flight);

}  // namespace llmsim::workload
