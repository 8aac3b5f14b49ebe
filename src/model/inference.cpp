#include "llmsim/model/inference.hpp"

#include <algorithm>
#include <cmath>

namespace llmsim::model {

double InferenceStep::tokens() const {
  double t = decode_seqs + padding;
  for (const auto& c : prefill) t += c.tokens;
  return t;
}

namespace {
double heads_per_rank(const LayerShape& x) { return x.a / x.t; }
}  // namespace

double kv_bytes_per_token_layer(const LayerShape& x) { return 2 * x.kv_heads_per_rank() * x.d * x.bytes_per_element(); }

double active_experts(const InferenceMoe& moe, double tokens) {
  return moe.experts * (1 - std::pow(1 - moe.top_k / moe.experts, tokens));
}

namespace {
/// FFN up, activation and down of `f` hidden units over `tokens` tokens, `batch` experts of them.
std::vector<Kernel> ffn(const LayerShape& x, double batch, double tokens, double f) {
  const double e = x.bytes_per_element(), up = (x.swiglu ? 2 : 1) * f / x.t;
  return {gemm("ffn_up", Category::Gemm, batch, tokens, up, x.h, x.precision),
          elementwise(x.swiglu ? "swiglu" : "gelu", Category::Elementwise, batch * (up + f / x.t) * e * tokens),
          gemm("ffn_down", Category::Gemm, batch, tokens, x.h, f / x.t, x.precision)};
}

}  // namespace

std::vector<Kernel> inference_moe_ffn(const LayerShape& x, double T, const InferenceMoe& moe) {
  const double n = active_experts(moe, T), e = x.bytes_per_element(), routed = T * moe.top_k * x.h;
  std::vector<Kernel> out = {gemm("router", Category::Gemm, 1, T, moe.experts, x.h, x.precision),
                             elementwise("moe_permute", Category::Elementwise, e * (T * x.h + routed))};
  for (auto& k : ffn(x, n, T * moe.top_k / n, moe.expert_f)) out.push_back(k);
  out.push_back(elementwise("moe_finalize", Category::Elementwise, e * (routed + T * x.h)));
  return out;
}

std::vector<Kernel> inference_attention(const LayerShape& x, const InferenceStep& st) {
  const double e = x.bytes_per_element(), hq = heads_per_rank(x), hkv = x.kv_heads_per_rank();
  std::vector<Kernel> out;
  for (const auto& c : st.prefill) {
    // Causal attention of q new tokens over c + q keys: FLOPs of QK^T and PV over the visible pairs.
    const double pairs = c.tokens * (c.context + (c.tokens + 1) / 2);
    Kernel k = gemm("prefill_attention", Category::Attention, hq, c.tokens, c.context + c.tokens, x.d, x.precision);
    k.flops = 4 * hq * pairs * x.d;
    k.bytes = e * (2 * hq * c.tokens * x.d + 2 * hkv * (c.context + c.tokens) * x.d);  // Q, O; K, V once
    out.push_back(k);
  }
  if (st.decode_seqs > 0) {
    Kernel k = elementwise("decode_attention", Category::Attention,
                           e * (2 * hkv * x.d * st.decode_context + 2 * hq * x.d * st.decode_seqs));
    k.flops = 4 * hq * x.d * st.decode_context;
    out.push_back(k);
  }
  return out;
}

std::vector<Kernel> inference_token_kernels(const LayerShape& x, double T, const InferenceMoe& moe) {
  const double e = x.bytes_per_element(), hq = heads_per_rank(x), hkv = x.kv_heads_per_rank();
  const double qkv = (hq + 2 * hkv) * x.d;
  std::vector<Kernel> out = {
      elementwise("input_norm", Category::Elementwise, 2 * e * T * x.h),
      gemm("qkv", Category::Gemm, 1, T, qkv, x.h, x.precision),
      elementwise("rope_kv_write", Category::Elementwise, 2 * e * T * qkv),
      gemm("attn_proj", Category::Gemm, 1, T, x.h, hq * x.d, x.precision),
      elementwise("residual_norm", Category::Elementwise, 4 * e * T * x.h),
  };
  const auto mlp = moe.experts > 0 ? inference_moe_ffn(x, T, moe) : ffn(x, 1, T, x.f);
  out.insert(out.end(), mlp.begin(), mlp.end());
  out.push_back(elementwise("residual", Category::Elementwise, 3 * e * T * x.h));
  return out;
}

std::vector<Kernel> inference_embedding(const LayerShape& x, const InferenceStep& st) {
  return {elementwise("embedding", Category::Elementwise, 2 * x.bytes_per_element() * st.tokens() * x.h)};
}

std::vector<Kernel> inference_head(const LayerShape& x, const InferenceStep& st) {
  if (st.sampled <= 0) return {};
  const double e = x.bytes_per_element(), n = st.sampled;
  return {
      elementwise("final_norm", Category::Elementwise, 2 * e * n * x.h),
      gemm("logits", Category::Gemm, 1, n, x.vocab / x.t, x.h, x.precision),
      elementwise("sampling", Category::Elementwise, 2 * 4 * n * x.vocab / x.t),  // fp32 logits: softmax, top-p
  };
}

}  // namespace llmsim::model
