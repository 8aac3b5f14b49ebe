#pragma once
// Per-operator arithmetic of a MoE FFN layer on one tensor-parallel rank (experts split over tp like the dense
// MLP: Megatron's expert tensor parallelism = tp). Shapes as in transformer.hpp: T = b*s tokens of a
// micro-batch, h hidden, t = tp, f_e = model.moe.expert_ffn_hidden, k = top_k, E = experts.
//   pre:     MLP norm, router GEMM T x E x h, top-k softmax (T x E), permutation of the T*k token copies,
//            shared experts (one FFN of inner shared*f_e/t on all T tokens)
//   expert:  one routed expert on n tokens: up GEMM n x (2 f_e/t for SwiGLU, else f_e/t) x h, activation,
//            down GEMM n x h x f_e/t
//   post:    un-permutation and weighted sum of the T*k expert outputs, dropout + residual
// (Fedus et al. 2022 Switch Transformer Sec. 2; DeepSeekMoE Sec. 3; Megatron-core moe token dispatcher.)
#include <vector>

#include "llmsim/model/transformer.hpp"

namespace llmsim::model {

std::vector<Kernel> moe_pre_forward(const LayerShape& x, const scenario::Moe& moe);
std::vector<Kernel> expert_forward(const LayerShape& x, const scenario::Moe& moe, double tokens);
std::vector<Kernel> moe_post_forward(const LayerShape& x, const scenario::Moe& moe);

/// Parameters of the whole model: embedding, every layer (dense or MoE with all its experts), final norm,
/// the output layer when untied.
double model_params(const scenario::Model& m);

}  // namespace llmsim::model
