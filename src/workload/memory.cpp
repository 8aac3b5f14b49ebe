#include "llmsim/workload/memory.hpp"

#include "llmsim/model/fp8.hpp"
#include "llmsim/model/moe.hpp"
#include "llmsim/model/optimizer.hpp"

namespace llmsim::workload {
namespace {

/// A rank's tokens of each sequence: seq_len / cp.
double local_seq(const scenario::Scenario& s) { return double(s.training.seq_len) / s.parallelism.cp; }
/// s*b*h of one rank's micro-batch.
double local_sbh(const scenario::Scenario& s) { return local_seq(s) * s.training.micro_batch * s.model.hidden; }
/// Korthikanti's coefficients count 2 bytes per kept activation element; an fp32 or tf32 run keeps 4.
double element_scale(const scenario::Scenario& s) { return model::LayerShape::from(s).bytes_per_element() / 2; }

/// The model's shape as multiples of h: the query width a d / h and the attention output width a dv / h (both 1
/// when head_dim is auto and there is no MLA), the key and value width per rank times t, (kv/t) t (d + dv) / h, the
/// FFN width f / h, the FFN intermediates kept per f-wide element (GeLU: its input and output, 2 + 2 bytes; SwiGLU:
/// gate and up outputs and their product, 2 + 2 + 2 bytes), and MLA's latents, which every tp rank keeps whole: the
/// query latent and its norm output, the key/value latent with the key's RoPE part and its norm output,
/// (2 q_lora + 2 kv_lora + rope) / h.
struct Widths {
  double query, out, keys_values, ffn, ffn_kept, latents;
};
Widths widths(const scenario::Scenario& s) {
  const auto x = model::LayerShape::from(s);
  return {x.a * x.d / x.h,
          x.a * x.value_dim() / x.h,
          x.kv_heads_per_rank() * x.t * (x.d + x.value_dim()) / x.h,
          x.f / x.h,
          x.swiglu ? 6.0 : 4.0,
          (2 * x.q_lora + 2 * x.kv_lora + x.rope) / x.h};
}

/// Bytes an FP8 recipe saves per layer: the inputs of its GEMMs kept in FP8 instead of 2 bytes.
struct Fp8Saving {
  double attention = 0, mlp = 0;
};

/// Bytes per element an FP8 recipe saves on a GEMM input it keeps in FP8 rather than 16 bits; 0 without FP8.
double fp8_saving_per_element(const model::Fp8& f) {
  return f.enabled() ? 2 - model::bytes_per_element(f.gemm_precision()) : 0;
}

Fp8Saving fp8_activation_saving(const scenario::Scenario& s) {
  const model::Fp8 f = model::LayerShape::from(s).fp8;
  const double per_element = fp8_saving_per_element(f);
  if (per_element == 0) return {};
  const double sbh = local_sbh(s), t = s.parallelism.tp;
  const double norm_side = s.parallelism.sequence_parallel ? t : 1;  // QKV and FC1 inputs: split by SP only
  // The attention output is the projection's input. Unfused, only the projection keeps it (as its FP8 copy). Fused,
  // the attention kernel keeps it in 16 bits for its own backward (FlashAttention's O); Megatron-Core makes the
  // projection save that same tensor for every recipe but delayed scaling (set_save_original_input,
  // megatron/core/transformer/attention.py, TE >= 2.6), which keeps an FP8 copy beside it.
  const bool fused = s.training.attention == "flash";
  const double out = !fused ? per_element : f.recipe == model::Fp8Recipe::Delayed ? -(2 - per_element) : 0;
  const Widths w = widths(s);
  return {per_element * sbh / norm_side + out * w.out * sbh / t, per_element * (sbh / norm_side + w.ffn * sbh / t)};
}

/// Bytes of one MoE layer that an FP8 recipe saves on its experts: Transformer Engine's GroupedLinear keeps the FP8
/// column-wise copy of each GEMM input for its wgrad (transformer_engine/pytorch/module/grouped_linear.py), which is
/// Megatron-Core's default for routed experts (megatron/core/transformer/moe/experts.py keeps the original input
/// only under moe_act recomputation, whose output is not kept): the k permuted copies of FC1's input, and the FC2
/// input of each routed copy (not with moe_act) and of each shared expert.
double fp8_expert_saving(const scenario::Scenario& s, bool moe_act) {
  const double per_element = fp8_saving_per_element(model::LayerShape::from(s).fp8);
  const auto& moe = s.model.moe;
  const double sbh = local_sbh(s), t = s.parallelism.tp;
  const double copy = s.parallelism.sequence_parallel ? sbh / t : sbh;  // one token copy of FC1's input
  const double fc2 = double(moe.expert_ffn_hidden) / s.model.hidden * sbh / t;
  return per_element * (moe.top_k * copy + ((moe_act ? 0 : moe.top_k) + moe.shared_experts) * fc2);
}

/// Bytes per s*b*h that recomputing MLA's up-projections frees (recompute_modules mla_up_proj): their outputs,
/// this rank's queries and keys and values, rebuilt from the kept latents.
double mla_up_saving(const scenario::Scenario& s, const Widths& w, bool selective) {
  if (!selective || !s.training.recompute_modules.mla_up_proj || w.latents == 0) return 0;
  return 2 * element_scale(s) * (w.query + w.keys_values) / s.parallelism.tp;
}

}  // namespace

double layer_activation_bytes(const scenario::Scenario& s, const std::string& recompute) {
  const double sbh = local_sbh(s);
  const double t = s.parallelism.tp, a = s.model.heads, h = s.model.hidden, seq = local_seq(s);
  const bool sp = s.parallelism.sequence_parallel, fused = s.training.attention == "flash";
  const double mask = s.model.dropout ? 1 : 0, k = element_scale(s);
  // softmax output (+ dropout mask, 1 byte, and output)
  const double attention = (2 * k + (1 + 2 * k) * mask) * a * seq / (h * t);
  if (recompute == "full") return 2 * k * sbh / (sp ? t : 1);
  const Widths w = widths(s);
  const double norm_side = 8 * k + 2 * mask;  // QKV and FC1 inputs, the two norms' inputs, the two dropout masks
  // the query, the projection's input, keys and values, and the FFN's intermediates
  const double tp_side = k * (2 * w.query + 2 * w.out + 2 * w.keys_values + w.ffn_kept * w.ffn);
  const double base = (sp ? (norm_side + tp_side) / t : norm_side + tp_side / t) + 2 * k * w.latents;
  const Fp8Saving fp8 = fp8_activation_saving(s);
  const double logsumexp = fused ? 4.0 * s.training.micro_batch * a * seq / t : 0;  // one fp32 per query row
  const auto& modules = s.training.recompute_modules;
  const bool selective = recompute == "selective";
  const double core = (selective && modules.core_attn) || fused ? 0 : attention;
  return sbh * (base + core - mla_up_saving(s, w, selective)) + logsumexp - fp8.attention - fp8.mlp;
}

double moe_layer_activation_bytes(const scenario::Scenario& s, const std::string& recompute) {
  const double dense = layer_activation_bytes(s, recompute) + fp8_activation_saving(s).mlp;  // the dense MLP's
  if (recompute == "full") return layer_activation_bytes(s, recompute);  // only the layer input is kept
  const auto& moe = s.model.moe;
  const double sbh = element_scale(s) * local_sbh(s), t = s.parallelism.tp;  // 2-byte units scaled to e bytes
  const double input = s.parallelism.sequence_parallel ? 2 * sbh / t : 2 * sbh;  // one copy of the MLP input
  const Widths w = widths(s);
  const double ffn = w.ffn_kept * w.ffn * sbh / t;  // the dense MLP's intermediates
  // moe_act recomputation keeps the routed experts' activation input, not its output: 2 bytes fewer per element
  const bool moe_act = recompute == "selective" && s.training.recompute_modules.moe_act;
  const double routed_kept = w.ffn_kept - (moe_act ? 2 : 0);
  const double experts = (routed_kept * moe.top_k + w.ffn_kept * moe.shared_experts) * moe.expert_ffn_hidden /
                         s.model.hidden * sbh / t;
  return dense - input - ffn + moe.top_k * input + experts - fp8_expert_saving(s, moe_act);
}

double chunk_activation_bytes(const scenario::Scenario& s, int first, int layers, const std::string& recompute) {
  double bytes = 0;
  for (int l = first; l < first + layers; ++l)
    bytes += s.model.moe.is_moe_layer(l) ? moe_layer_activation_bytes(s, recompute) : layer_activation_bytes(s, recompute);
  return bytes;
}

double fp8_copy_bytes_per_param(const scenario::Scenario& s) {
  const model::LayerShape x = model::LayerShape::from(s);
  const double cached = model::fp8_weight_copy_bytes(x.fp8);
  if (cached == 0) return 0;
  // FP8 primary weights: the FP8 copies replace the high-precision weights counted in state_memory
  return cached - (s.training.fp8_param_gather ? x.bytes_per_element() : 0);
}

double fp8_weight_copy_bytes(const scenario::Scenario& s, int first, int layers) {
  const double copy = fp8_copy_bytes_per_param(s);
  if (copy == 0) return 0;
  const auto& m = s.model;
  const double routed = double(m.moe.experts) / s.parallelism.ep + m.moe.shared_experts;
  double params = 0;
  for (int l = first; l < first + layers; ++l)
    params += model::attention_params(m) + (m.moe.is_moe_layer(l) ? routed * model::ffn_params(m, m.moe.expert_ffn_hidden)
                                                                   : model::ffn_params(m, m.ffn_hidden));
  return copy * params / s.parallelism.tp;
}

MemoryBreakdown state_memory(const scenario::Scenario& s, double params) {
  const model::Precision prec = model::LayerShape::from(s).precision;
  const double e = model::bytes_per_element(prec);
  MemoryBreakdown m;
  const int z = s.training.zero_stage;
  const double dp = s.parallelism.dp_cp();
  m.weights = params * e / (z >= 3 ? dp : 1);
  m.gradients = params * model::gradient_bytes_per_param(prec, s.training.grad_reduce_in_fp32) / (z >= 2 ? dp : 1);
  m.optimizer = params * model::optimizer_state_bytes(s) / (z >= 1 ? dp : 1);
  return m;
}

double activation_memory(const scenario::Scenario& s, double set_bytes, int max_in_flight) {
  double bytes = set_bytes * max_in_flight;
  if (s.training.recompute == "full") bytes += layer_activation_bytes(s, "none");
  return bytes;
}

MemoryBreakdown stage_memory(const scenario::Scenario& s, double params, double set_bytes, int max_in_flight) {
  MemoryBreakdown m = state_memory(s, params);
  m.activations = activation_memory(s, set_bytes, max_in_flight);
  return m;
}

}  // namespace llmsim::workload
