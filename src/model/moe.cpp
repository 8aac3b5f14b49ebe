#include "llmsim/model/moe.hpp"

#include "llmsim/model/fp8.hpp"

namespace llmsim::model {

namespace {
double ffn_in(const LayerShape& x, double inner) { return (x.swiglu ? 2 : 1) * inner; }
}  // namespace

std::vector<Kernel> moe_pre_forward(const LayerShape& x, const scenario::Moe& moe) {
  const double T = x.b * x.s, e = x.bytes_per_element(), k = moe.top_k, sp = x.sequence_parallel ? x.t : 1;
  std::vector<Kernel> out = {
      elementwise("mlp_norm", Category::Elementwise, 2 * e * T * x.h / sp),
      gemm("router", Category::Gemm, 1, T, moe.experts, x.h, x.precision),  // stays in the high precision
      elementwise("router_topk", Category::Elementwise, 2 * 4 * T * moe.experts),
      elementwise("permute", Category::Elementwise, 2 * e * T * k * x.h),
  };
  if (moe.shared_experts > 0) {
    const double inner = double(moe.shared_experts) * moe.expert_ffn_hidden / x.t;
    out = concat(out, linear("shared_up", x, T, ffn_in(x, inner), x.h));
    out.push_back(elementwise("shared_act", Category::Elementwise, (ffn_in(x, inner) + inner) * e * T));
    out = concat(out, linear("shared_down", x, T, x.h, inner));
  }
  return out;
}

std::vector<Kernel> expert_forward(const LayerShape& x, const scenario::Moe& moe, double tokens) {
  if (tokens <= 0) return {};
  const double e = x.bytes_per_element(), inner = double(moe.expert_ffn_hidden) / x.t;
  std::vector<Kernel> out = linear("expert_up", x, tokens, ffn_in(x, inner), x.h);
  out.push_back(elementwise("expert_act", Category::Elementwise, (ffn_in(x, inner) + inner) * e * tokens));
  return concat(out, linear("expert_down", x, tokens, x.h, inner));
}

std::vector<Kernel> moe_post_forward(const LayerShape& x, const scenario::Moe& moe) {
  const double T = x.b * x.s, e = x.bytes_per_element();
  return {elementwise("unpermute", Category::Elementwise, 2 * e * T * moe.top_k * x.h), dropout_add("mlp_dropout_add", x)};
}

double model_params(const scenario::Model& m) {
  double p = embedding_params(m) + 2.0 * m.hidden + (m.tied_embeddings ? 0 : double(m.vocab) * m.hidden);
  for (int l = 0; l < m.layers; ++l) p += m.moe.is_moe_layer(l) ? moe_layer_params(m, m.moe.experts) : layer_params(m);
  return p;
}

}  // namespace llmsim::model
