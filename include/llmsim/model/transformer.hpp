#pragma once
// Per-operator arithmetic of a dense decoder-only transformer layer on one tensor-parallel rank.
// Shapes follow Megatron-LM (Shoeybi et al. 2019, Sec. 3; Narayanan et al. SC'21, Sec. 3.2 and eq. 3):
//   T = b*s tokens of a micro-batch, h hidden, a heads (d = h/a), kv kv-heads, f FFN size, t = tp.
// FLOPs count multiply-adds as 2. Bytes are HBM traffic in the training precision (bytes per element from
// model/precision.hpp: 2 for bf16/fp16) plus one byte per element for dropout masks. Under an FP8 recipe
// (training.fp8) the weight GEMMs and their cast kernels come from model/fp8.hpp; with training.attention
// "flash" the attention core is one fused kernel (model/fused_attention.hpp).
#include <string>
#include <vector>

#include "llmsim/model/precision.hpp"
#include "llmsim/scenario/scenario.hpp"

namespace llmsim::model {

/// What a kernel is, for the time breakdown.
enum class Category { Gemm, Attention, Elementwise };
const char* category_name(Category c);

/// How a kernel is timed and differentiated: a plain GEMM or element-wise kernel; an FP8 cast or amax kernel
/// (not differentiated: the backward has its own casts); a fused attention kernel, forward or backward (its
/// own efficiency curve, hardware/compute_model.hpp).
enum class KernelKind { Plain, Fp8Scaling, FusedAttentionForward, FusedAttentionBackward };

/// One kernel. A GEMM has m x k times k x n, repeated `batch` times; an element-wise kernel has flops = 0.
struct Kernel {
  std::string name;
  Category category;
  double flops = 0;        ///< [FLOP]
  double bytes = 0;        ///< HBM traffic [bytes]
  double m = 0, n = 0, k = 0, batch = 1;  ///< GEMM shape (0 for element-wise)
  Precision precision = Precision::Bf16;  ///< the format its math runs in: its FLOPs run at this peak
  KernelKind kind = KernelKind::Plain;
  Fp8 fp8 = {};            ///< a weight GEMM under an FP8 recipe: the recipe its backward casts the gradient by
  double seq = 0;          ///< fused attention: the sequence length of its efficiency curve
  /// Launches per run of the list it is in: 1, or a share for work done once per several runs (the FP8 weight
  /// cast, cached after the first micro-batch); what the host pays to issue it (software.kernel_launch_us).
  double launches = 1;
  bool is_gemm() const { return m > 0; }
};

/// `batch` GEMMs of (m x k) x (k x n) in precision `p` (e = bytes_per_element(p)): 2 batch m n k FLOPs,
/// e batch (mk + kn + mn) bytes (each operand read once, the result written once).
Kernel gemm(const std::string& name, Category c, double batch, double m, double n, double k, Precision p);
/// A kernel that only moves `bytes`.
Kernel elementwise(const std::string& name, Category c, double bytes);

/// Shape of the work one tensor-parallel rank does for one micro-batch. With context parallelism (cp > 1) a
/// rank holds s = seq_len / cp tokens of each sequence (its linear layers and norms run on them); its fused
/// attention kernel attends over the whole sequence (model/fused_attention.hpp).
struct LayerShape {
  double b = 1, s = 1, h = 1, a = 1, kv = 1, f = 1, t = 1, vocab = 1, d = 1;  ///< d: query/key head dimension
  /// Multi-head latent attention (scenario::Mla): d = head_dim + qk_rope_head_dim, dv = v_head_dim, and the
  /// latent widths; all 0 without MLA (dv 0: a value head is d wide).
  double dv = 0, q_lora = 0, kv_lora = 0, rope = 0;
  double cp = 1;                          ///< parallelism.cp
  bool ulysses = false;                   ///< parallelism.cp_variant "ulysses" (else ring attention)
  bool swiglu = false;
  bool sequence_parallel = false;
  Precision precision = Precision::Bf16;  ///< training.precision (serving.precision for serving)
  Fp8 fp8;                                ///< training.fp8: the FP8 recipe of the weight GEMMs
  bool fused_attention = false;           ///< training.attention "flash"
  bool dropout = true;                    ///< model.dropout: dropout kernels write a 1-byte mask per element
  bool causal = true;                     ///< decoder-only: the fused kernel skips the masked half
  double bytes_per_element() const { return model::bytes_per_element(precision); }
  /// Key/value heads on one tp rank: kv / t, or 1 when there are fewer KV heads than tp ranks (replicated).
  double kv_heads_per_rank() const { return kv >= t ? kv / t : 1; }
  double value_dim() const { return dv > 0 ? dv : d; }
  bool mla() const { return kv_lora > 0; }
  static LayerShape from(const scenario::Scenario& sc);
};

/// Forward kernels of one transformer layer (attention block then MLP block), without the tp collectives.
std::vector<Kernel> layer_forward(const LayerShape& x);
/// The attention unit of layer_forward: input norm, QKV, attention core, output projection, dropout + residual.
/// Its output projection is row-parallel: one tp all-reduce after it (forward); the QKV GEMM is
/// column-parallel: one tp all-reduce of its input gradient (backward).
std::vector<Kernel> attention_forward(const LayerShape& x);
/// The MLP unit of layer_forward: norm, FFN up (column-parallel), activation, FFN down (row-parallel), dropout +
/// residual; one tp all-reduce forward, one backward, like the attention unit.
std::vector<Kernel> mlp_forward(const LayerShape& x);
/// The activation-gradient part (B) of the backward of `forward`: a weight GEMM gives its data-gradient GEMM
/// (1x FLOPs and bytes), an attention GEMM (no weights) both input gradients (2x), an element-wise kernel that
/// reads x and writes y forward reads x (or y) and dy and writes dx backward: 1.5x its forward bytes (exact for
/// softmax, GeLU and norms; dropout and residual adds move less). An FP8 weight GEMM is preceded by the casts
/// of its output gradient (model/fp8.hpp); FP8 cast kernels have no backward; a fused attention kernel gives
/// its backward kernel (model/fused_attention.hpp).
std::vector<Kernel> backward_input(const std::vector<Kernel>& forward);
/// The weight-gradient part (W): one weight-gradient GEMM (1x FLOPs and bytes) per weight GEMM. B + W is the
/// whole backward, 2x the forward GEMM FLOPs (Narayanan et al. SC'21 Sec. 5.1; Qi et al. 2024, zero bubble).
std::vector<Kernel> backward_weight(const std::vector<Kernel>& forward);
/// The kernels of `forward` (a layer or a unit) recomputed before its backward: all of them for "full", the
/// attention core (scores, softmax, dropout, attention over V) for "selective" (Korthikanti et al. 2022,
/// Sec. 4.2; a fused attention kernel stores no scores, so selective recomputes nothing of it), none for
/// "none".
/// With "selective", `modules` chooses: core_attn the unfused attention core as above, mla_up_proj MLA's q_up and
/// kv_up GEMMs with their input casts and the RoPE kernel (Megatron-Core recompute_modules "mla_up_proj"), moe_act
/// the routed experts' activation kernel ("moe_act").
std::vector<Kernel> recomputed(const std::vector<Kernel>& forward, const std::string& recompute,
                               const scenario::Training::RecomputeModules& modules = {});
/// Input embedding lookup (first stage), forward and backward.
std::vector<Kernel> embedding_forward(const LayerShape& x);
/// Final norm, logits GEMM (vocabulary split over tp) and cross-entropy (last stage), forward and backward.
std::vector<Kernel> head_forward(const LayerShape& x);
/// The input of a multi-token-prediction module (DeepSeek-V3 Sec. 2.2; Megatron-Core MultiTokenPredictionLayer):
/// the embedding of the tokens one step ahead, RMSNorm of it and of the previous depth's hidden state, and the
/// projection of their concatenation, T x 2h -> h (column-parallel); its layer and the shared head follow.
std::vector<Kernel> mtp_input_forward(const LayerShape& x);
/// Dropout + residual add after a block on b*s tokens (b*s/t with SP): reads the block output and the residual,
/// writes the sum (e bytes each) and, with model.dropout, a 1-byte mask per element.
Kernel dropout_add(const std::string& name, const LayerShape& x);

double total_flops(const std::vector<Kernel>& kernels);
/// Kernel launches the host issues for `kernels` (the sum of Kernel::launches).
double total_launches(const std::vector<Kernel>& kernels);
/// `a` followed by `b`.
std::vector<Kernel> concat(std::vector<Kernel> a, const std::vector<Kernel>& b);

/// Bytes of one tp all-reduce of a layer's activations (b*s*h elements): two per layer forward
/// (after attention and after the MLP), two per layer backward (Shoeybi et al. 2019, Fig. 4).
double tp_activation_bytes(const LayerShape& x);

/// Megatron-LM eq. 3: FLOPs of one iteration with full recomputation,
/// 96*B*s*l*h^2*(1 + s/(6h) + V/(16*l*h)). B = global batch (sequences), l = layers.
double megatron_eq3_flops(double B, double s, double l, double h, double V);

/// Parameters of one transformer layer (weights and biases of QKV, projection, FFN and the two norms).
double layer_params(const scenario::Model& m);
/// QKV and output projection (with biases for LayerNorm models) of one layer.
double attention_params(const scenario::Model& m);
/// One FFN of inner size `inner`: 2 GEMMs (GeLU) or 3 (SwiGLU), with biases for LayerNorm models.
double ffn_params(const scenario::Model& m, double inner);
/// The two norms of one layer.
double norm_params(const scenario::Model& m);
/// One MoE layer holding `routed_experts` of its routed experts (all: model.moe.experts): attention, norms,
/// the router (hidden x experts), the shared experts and those routed experts.
double moe_layer_params(const scenario::Model& m, double routed_experts);
/// Parameters of the input embedding (V*h) plus learned positions (max_seq_len*h) if any.
double embedding_params(const scenario::Model& m);

}  // namespace llmsim::model
