#include "llmsim/model/transformer.hpp"

#include <algorithm>

#include "llmsim/model/fp8.hpp"
#include "llmsim/model/fused_attention.hpp"

namespace llmsim::model {

const char* category_name(Category c) {
  switch (c) {
    case Category::Gemm: return "gemm";
    case Category::Attention: return "attention";
    case Category::Elementwise: return "elementwise";
  }
  return "?";
}

LayerShape LayerShape::from(const scenario::Scenario& sc) {
  LayerShape x;
  x.b = sc.training.micro_batch;
  x.cp = sc.parallelism.cp;
  x.s = double(sc.training.seq_len) / x.cp;
  x.ulysses = sc.parallelism.cp_variant == "ulysses";
  x.h = sc.model.hidden;
  x.a = sc.model.heads;
  x.kv = sc.model.kv_heads;
  x.d = sc.model.head_dim;
  if (sc.model.mla.enabled()) {
    const auto& mla = sc.model.mla;
    x.d += mla.qk_rope_head_dim;
    x.dv = mla.v_head_dim;
    x.q_lora = mla.q_lora_rank;
    x.kv_lora = mla.kv_lora_rank;
    x.rope = mla.qk_rope_head_dim;
  }
  x.f = sc.model.ffn_hidden;
  x.t = sc.parallelism.tp;
  x.vocab = sc.model.vocab;
  x.swiglu = sc.model.activation == "swiglu";
  x.sequence_parallel = sc.parallelism.sequence_parallel;
  x.precision = precision_from_name(sc.training.precision, "/training/precision");
  x.fp8.recipe = fp8_recipe_from_name(sc.training.fp8, "/training/fp8");
  x.fp8.high = x.precision;
  x.fp8.weight_share = 1.0 / std::max(1, sc.training.micro_batches_per_pipeline(sc.parallelism.dp));
  x.fused_attention = sc.training.attention == "flash";
  x.dropout = sc.model.dropout;
  return x;
}

Kernel gemm(const std::string& name, Category c, double batch, double m, double n, double k, Precision p) {
  const double e = bytes_per_element(p);
  Kernel g{name, c, 2 * batch * m * n * k, e * batch * (m * k + k * n + m * n), m, n, k, batch};
  g.precision = p;
  return g;
}
Kernel elementwise(const std::string& name, Category c, double bytes) { return Kernel{name, c, 0, bytes}; }

Kernel dropout_add(const std::string& name, const LayerShape& x) {
  const double sp = x.sequence_parallel ? x.t : 1, mask = x.dropout ? 1 : 0;
  return elementwise(name, Category::Elementwise, (3 * x.bytes_per_element() + mask) * x.b * x.s * x.h / sp);
}

namespace {
struct LayerDims {
  double T, d, e, heads, kv_heads, sp, ffn_in;
  explicit LayerDims(const LayerShape& x)
      : T(x.b * x.s), d(x.d), e(x.bytes_per_element()), heads(x.a / x.t), kv_heads(x.kv_heads_per_rank()),
        sp(x.sequence_parallel ? x.t : 1),  // norms and dropouts run on T/t tokens with SP
        ffn_in(x.swiglu ? 2 * x.f / x.t : x.f / x.t) {}
};

/// Megatron's unfused attention core: scores GEMM, softmax, dropout, attention over V (all s^2 tensors in HBM).
std::vector<Kernel> unfused_attention_core(const LayerShape& x);
}  // namespace

namespace {
/// MLA's projections (DeepSeek-V2 Sec. 2.1; Megatron-Core MLASelfAttention): the down-projections to the query
/// and key/value latents (with the key's shared RoPE part) are replicated on every tp rank, each latent is
/// normalised, and the column-parallel up-projections give this rank's heads their query (d wide) and key and
/// value (d - rope and dv wide); RoPE rotates the query's and the key's rope parts.
std::vector<Kernel> mla_projections(const LayerShape& x, const LayerDims& y) {
  std::vector<Kernel> out;
  if (x.q_lora > 0) {
    out = linear("q_down", x, y.T, x.q_lora, x.h);
    out.push_back(elementwise("q_norm", Category::Elementwise, 2 * y.e * y.T * x.q_lora));
    out = concat(out, linear("q_up", x, y.T, y.heads * y.d, x.q_lora));
  } else {
    out = linear("q_proj", x, y.T, y.heads * y.d, x.h);
  }
  out = concat(out, linear("kv_down", x, y.T, x.kv_lora + x.rope, x.h));
  out.push_back(elementwise("kv_norm", Category::Elementwise, 2 * y.e * y.T * x.kv_lora));
  out = concat(out, linear("kv_up", x, y.T, y.heads * (y.d - x.rope + x.value_dim()), x.kv_lora));
  out.push_back(elementwise("mla_rope", Category::Elementwise, 2 * y.e * y.T * (y.heads + 1) * x.rope));
  return out;
}
}  // namespace

std::vector<Kernel> attention_forward(const LayerShape& x) {
  const LayerDims y(x);
  std::vector<Kernel> out = {elementwise("input_norm", Category::Elementwise, 2 * y.e * y.T * x.h / y.sp)};
  out = concat(out, x.mla() ? mla_projections(x, y) : linear("qkv", x, y.T, (y.heads + 2 * y.kv_heads) * y.d, x.h));
  out = concat(out, x.fused_attention ? std::vector<Kernel>{fused_attention_forward(x)} : unfused_attention_core(x));
  out = concat(out, linear("attn_proj", x, y.T, x.h, y.heads * x.value_dim()));
  out.push_back(dropout_add("attn_dropout_add", x));
  return out;
}

namespace {
std::vector<Kernel> unfused_attention_core(const LayerShape& x) {
  const LayerDims y(x);
  const double scores = x.b * y.heads * x.s * x.s;  // attention-matrix elements on this rank
  std::vector<Kernel> out = {gemm("attn_scores", Category::Attention, x.b * y.heads, x.s, x.s, y.d, x.precision),
                             elementwise("softmax", Category::Attention, 2 * y.e * scores)};
  if (x.dropout) out.push_back(elementwise("attn_dropout", Category::Attention, (2 * y.e + 1) * scores));
  out.push_back(gemm("attn_over_v", Category::Attention, x.b * y.heads, x.s, x.value_dim(), x.s, x.precision));
  return out;
}
}  // namespace

std::vector<Kernel> mlp_forward(const LayerShape& x) {
  const LayerDims y(x);
  std::vector<Kernel> out = {elementwise("mlp_norm", Category::Elementwise, 2 * y.e * y.T * x.h / y.sp)};
  out = concat(out, linear("ffn_up", x, y.T, y.ffn_in, x.h));
  out.push_back(elementwise(x.swiglu ? "swiglu" : "gelu", Category::Elementwise, (y.ffn_in + x.f / x.t) * y.e * y.T));
  out = concat(out, linear("ffn_down", x, y.T, x.h, x.f / x.t));
  out.push_back(dropout_add("mlp_dropout_add", x));
  return out;
}

std::vector<Kernel> layer_forward(const LayerShape& x) { return concat(attention_forward(x), mlp_forward(x)); }

std::vector<Kernel> concat(std::vector<Kernel> a, const std::vector<Kernel>& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

std::vector<Kernel> backward_input(const std::vector<Kernel>& forward) {
  std::vector<Kernel> out;
  for (auto k : forward) {
    if (k.kind == KernelKind::Fp8Scaling) continue;
    if (k.kind == KernelKind::FusedAttentionForward) {
      out.push_back(fused_attention_backward(k));
      continue;
    }
    if (k.fp8.enabled()) {
      out = concat(out, fp8_gradient_casts(k));
      out.push_back(fp8_dgrad(k));
      continue;
    }
    k.name += "_dgrad";
    const double scale = !k.is_gemm() ? 1.5 : k.category == Category::Attention ? 2 : 1;
    k.flops *= k.is_gemm() ? scale : 0;
    k.bytes *= scale;
    out.push_back(k);
  }
  return out;
}

std::vector<Kernel> backward_weight(const std::vector<Kernel>& forward) {
  std::vector<Kernel> out;
  for (auto k : forward)
    if (k.is_gemm() && k.category == Category::Gemm) {
      if (k.fp8.enabled()) k = fp8_wgrad(k);
      k.name += "_wgrad";
      out.push_back(k);
    }
  return out;
}

namespace {
bool starts_with(const std::string& s, const std::string& prefix) { return s.rfind(prefix, 0) == 0; }

/// Whether recompute "selective" with `m` recomputes kernel `k`.
bool selected(const Kernel& k, const scenario::Training::RecomputeModules& m) {
  const bool core = k.category == Category::Attention && k.kind != KernelKind::FusedAttentionForward;
  const bool up = (starts_with(k.name, "q_up") || starts_with(k.name, "kv_up") || k.name == "mla_rope") &&
                  k.name.find("_weight_") == std::string::npos;  // FP8 weight copies stay cached
  return (m.core_attn && core) || (m.mla_up_proj && up) || (m.moe_act && k.name == "expert_act");
}
}  // namespace

std::vector<Kernel> recomputed(const std::vector<Kernel>& forward, const std::string& recompute,
                               const scenario::Training::RecomputeModules& modules) {
  std::vector<Kernel> out;
  if (recompute == "none") return out;
  for (auto k : forward) {
    if (recompute == "full" || selected(k, modules)) {
      k.name += "_recompute";
      out.push_back(k);
    }
  }
  return out;
}

std::vector<Kernel> embedding_forward(const LayerShape& x) {
  const double T = x.b * x.s, e = x.bytes_per_element();
  return {elementwise("embedding", Category::Elementwise, 2 * e * T * x.h)};
}

std::vector<Kernel> mtp_input_forward(const LayerShape& x) {
  const double T = x.b * x.s, e = x.bytes_per_element();
  std::vector<Kernel> out = embedding_forward(x);
  out.push_back(elementwise("mtp_norms", Category::Elementwise, 2 * 2 * e * T * x.h));
  return concat(out, linear("mtp_proj", x, T, x.h / x.t, 2 * x.h));
}

std::vector<Kernel> head_forward(const LayerShape& x) {
  const double T = x.b * x.s, e = x.bytes_per_element(), v = x.vocab / x.t;
  return {
      elementwise("final_norm", Category::Elementwise, 2 * e * T * x.h),
      gemm("logits", Category::Gemm, 1, T, v, x.h, x.precision),
      elementwise("cross_entropy", Category::Elementwise, 3 * 4 * T * v),
  };
}

double total_flops(const std::vector<Kernel>& kernels) {
  double f = 0;
  for (const auto& k : kernels) f += k.flops;
  return f;
}

double total_launches(const std::vector<Kernel>& kernels) {
  double n = 0;
  for (const auto& k : kernels) n += k.launches;
  return n;
}

double tp_activation_bytes(const LayerShape& x) { return x.b * x.s * x.h * x.bytes_per_element(); }

double megatron_eq3_flops(double B, double s, double l, double h, double V) {
  return 96 * B * s * l * h * h * (1 + s / (6 * h) + V / (16 * l * h));
}

namespace {
bool has_biases(const scenario::Model& m) { return m.norm == "layernorm"; }  // GPT-style layers carry biases
}  // namespace

double attention_params(const scenario::Model& m) {
  const double h = m.hidden, d = m.head_dim, q = m.heads * d, kv = 2.0 * m.kv_heads * d;
  if (m.mla.enabled()) {  // the projections of mla_projections and the two latent norms' weights
    const auto& a = m.mla;
    const double qk = d + a.qk_rope_head_dim, v = a.v_head_dim, heads = m.heads;
    const double q_lora = a.q_lora_rank;
    const double query = q_lora > 0 ? h * q_lora + q_lora + q_lora * heads * qk : h * heads * qk;
    return query + h * (a.kv_lora_rank + a.qk_rope_head_dim) + a.kv_lora_rank + a.kv_lora_rank * heads * (d + v) +
           heads * v * h;
  }
  return h * (q + kv) + q * h + (has_biases(m) ? q + kv + h : 0);
}

double ffn_params(const scenario::Model& m, double inner) {
  return (m.activation == "swiglu" ? 3 : 2) * m.hidden * inner + (has_biases(m) ? inner + m.hidden : 0);
}

double norm_params(const scenario::Model& m) { return (has_biases(m) ? 2 : 1) * 2.0 * m.hidden; }

double layer_params(const scenario::Model& m) { return attention_params(m) + ffn_params(m, m.ffn_hidden) + norm_params(m); }

double moe_layer_params(const scenario::Model& m, double routed_experts) {
  const auto& moe = m.moe;
  return attention_params(m) + norm_params(m) + double(m.hidden) * moe.experts +
         (moe.shared_experts + routed_experts) * ffn_params(m, moe.expert_ffn_hidden);
}

double embedding_params(const scenario::Model& m) {
  return static_cast<double>(m.vocab) * m.hidden + (m.position == "learned" ? double(m.max_seq_len) * m.hidden : 0);
}

}  // namespace llmsim::model
