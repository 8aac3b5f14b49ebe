#pragma once
// FP8 linear layers as NVIDIA Transformer Engine runs them (te.Linear / LayerNormLinear / LayerNormMLP and
// GroupedLinear for experts; recipes in model/precision.hpp). For a weight GEMM Y = X W of X: T x k (tokens x
// input features) and W: k x n, with h = bytes of the high precision (training.precision) and l = bytes of the
// recipe's format (fp8 1, mxfp8 1 + 1/32, nvfp4 1/2 + 1/16), the kernels are:
//
//   forward   <g>_input_amax   h T k                 fp8-cs and nvfp4 only: the current tensor's amax, a read
//                                                    pass before the cast (TE Float8CurrentScalingQuantizer:
//                                                    nvte_compute_amax, then nvte_compute_scale_from_amax)
//             <g>_input_cast   (h + 2 l) T k         read X, write the row-wise FP8 copy (fprop) and the
//                                                    transpose (Hopper: FP8 GEMMs take only the TN layout, so
//                                                    wgrad needs X^T; TE's fused cast-transpose,
//                                                    nvte_cast_transpose) or the column-wise MXFP8/NVFP4 copy
//                                                    with its own block scales (TE MXFP8Quantizer rowwise +
//                                                    columnwise usage); the transpose is what TE saves for
//                                                    the backward
//             <g>_weight_amax  h k n * share         likewise for W, once per iteration: Megatron caches the
//             <g>_weight_cast  (h + 2 l) k n * share FP8 weights and their transposes over the micro-batches
//                                                    (TE is_first_microbatch); share = 1 / micro-batches
//             <g>              FLOPs 2 T n k at the recipe's peak; bytes l (T k + k n) + h T n (TE's FP8 GEMM
//                                                    writes its output in the high precision)
//   backward  <g>_grad_amax    h T n                 fp8-cs and nvfp4: amax of dY
//             <g>_grad_cast    (h + 2 l) T n         dY to FP8 (E5M2 under the HYBRID format) and its
//                                                    transpose / column-wise copy for wgrad
//             <g>_dgrad        2 T n k FLOPs; bytes l (T n + k n) + h T k
//             <g>_wgrad        2 T n k FLOPs; bytes l (T k + T n) + h k n
// Delayed scaling and MXFP8 take the amax inside the cast kernel (no extra pass); the per-step amax-history and
// scale update of delayed scaling is a few small kernels per step and is not modelled. The casts are not fused
// into the preceding norm or activation (TE fuses them for delayed scaling in LayerNormLinear; with current
// scaling the amax must be known first). The attention core, softmax, norms, router, logits and the optimizer
// stay in the high precision.
#include <string>
#include <vector>

#include "llmsim/model/transformer.hpp"

namespace llmsim::model {

/// The weight GEMM `name` of `tokens` x `n` x `k` (see above): one GEMM in x.precision without a recipe, else
/// its cast kernels and the GEMM in the recipe's format (the GEMM carries the recipe for its backward).
std::vector<Kernel> linear(const std::string& name, const LayerShape& x, double tokens, double n, double k);
/// The backward casts of FP8 weight GEMM `g` (its output gradient dY: m x n elements).
std::vector<Kernel> fp8_gradient_casts(const Kernel& g);
/// The data-gradient and weight-gradient GEMMs of FP8 weight GEMM `g` (names end in _dgrad; the caller names
/// the wgrad).
Kernel fp8_dgrad(const Kernel& g);
Kernel fp8_wgrad(const Kernel& g);

/// Bytes of the cached FP8 weight copies per weight parameter: the row-wise copy and the transpose (or the
/// column-wise copy), 2 l; 0 without a recipe.
double fp8_weight_copy_bytes(const Fp8& f);

}  // namespace llmsim::model
