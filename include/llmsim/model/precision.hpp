#pragma once
// The one table of number formats (docs/precision.md): for each precision its storage bytes per element, the
// key of its peak in a hardware preset (`peak_TFLOPS`), and what it is. Every size in bytes and every peak
// lookup of the simulator goes through here.
//
//   name   bytes/element   kind          source
//   fp64   8               storage       IEEE 754 binary64
//   fp32   4               storage       IEEE 754 binary32
//   tf32   4               compute-only  a tensor-core math mode on fp32 data (10-bit mantissa inside the MMA);
//                                         tensors stay fp32 in memory (NVIDIA A100 whitepaper, "TF32")
//   bf16   2               storage       bfloat16
//   fp16   2               storage       IEEE 754 binary16
//   fp8    1               storage       E4M3 / E5M2 with one fp32 scale per tensor (Micikevicius et al. 2022,
//                                         "FP8 Formats for Deep Learning"; TE recipe.Format HYBRID: E4M3
//                                         forward, E5M2 gradients)
//   int8   1               storage       integer (serving weights)
//   mxfp8  1 + 1/32        block-scaled  E4M3 elements, one E8M0 scale byte per 32 elements (OCP Microscaling
//                                         Formats (MX) v1.0, Sec. 5.1, Table 1; TE MXFP8BlockScaling)
//   nvfp4  1/2 + 1/16      block-scaled  E2M1 elements, one E4M3 scale byte per 16 elements (+ one fp32 scale
//                                         per tensor, not counted; TE NVFP4BlockScaling, NVIDIA Blackwell
//                                         architecture technical brief)
//
// A block-scaled format's bytes include its scales. Its peak key is its own name: only presets whose tensor
// cores run it (Blackwell) list it; an fp8, mxfp8 or nvfp4 peak that a preset lacks is a ScenarioError naming
// the field that asked for it.
#include <string>
#include <vector>

#include "llmsim/scenario/scenario.hpp"

namespace llmsim::model {

enum class Precision { Fp64, Fp32, Tf32, Bf16, Fp16, Fp8, Int8, Mxfp8, Nvfp4 };
constexpr int kPrecisionCount = 9;

/// What a precision is: kept in memory with its bytes (storage), a math mode over another storage format
/// (compute-only: tf32 over fp32), or a storage format with per-block scales (block-scaled).
enum class PrecisionKind { Storage, ComputeOnly, BlockScaled };

/// Names of every precision in the table, in its order ("fp64", ..., "nvfp4").
const std::vector<std::string>& precision_names();
/// The precision called `name`; ScenarioError at `path` for an unknown name (listing the known ones).
Precision precision_from_name(const std::string& name, const std::string& path);
const char* precision_name(Precision p);
/// Bytes of one element in HBM (tf32: 4, stored as fp32; block-scaled formats with their scales).
double bytes_per_element(Precision p);
PrecisionKind precision_kind(Precision p);
/// The key of `p`'s dense peak in `peak_TFLOPS` (its name).
const char* peak_key(Precision p);
bool has_peak(const scenario::Hardware& hw, Precision p);
/// Dense peak of `p` on `hw` [FLOP/s]; ScenarioError at `path` naming the preset if it has none.
double peak_flops(const scenario::Hardware& hw, Precision p, const std::string& path);

/// Bytes per parameter of the gradients that data parallelism reduces when training in `training`: fp32 for
/// bf16 with `fp32_main_grads` (training.grad_reduce_in_fp32: Megatron's main_grad accumulates bf16 gradients in
/// fp32, also under an FP8 recipe; NeMo's performance recipes turn it off), else the training precision's
/// storage (fp16 with fp16 gradients, as the Table 1 calibration assumes).
double gradient_bytes_per_param(Precision training, bool fp32_main_grads);

/// FP8 training recipes of NVIDIA Transformer Engine (transformer_engine.common.recipe), `training.fp8`:
///   none          no FP8: every GEMM in training.precision
///   fp8-delayed   DelayedScaling: per-tensor scale from the amax history of earlier steps; the amax of the
///                 current tensor is taken inside the cast kernel (no extra pass)
///   fp8-cs        Float8CurrentScaling: per-tensor scale from the current tensor's amax, an extra read pass
///                 (amax kernel) before each cast
///   mxfp8         MXFP8BlockScaling (Blackwell): E4M3 with an E8M0 scale per 32 elements, computed inside
///                 the cast; row-wise and column-wise copies instead of transposes
///   nvfp4         NVFP4BlockScaling (Blackwell): E2M1 with E4M3 scales per 16 elements and a per-tensor
///                 amax pass; GEMMs at the datasheet FP4 peak x calibration.nvfp4_gemm_efficiency (fitted on
///                 Megatron-Bridge 26.02's NVFP4 rows, docs/calibration.md)
enum class Fp8Recipe { None, Delayed, Current, Mxfp8, Nvfp4 };

/// The FP8 setting of a run: recipe, the high precision it casts from (training.precision) and the share of
/// a weight cast charged to one micro-batch (Megatron caches the FP8 weights over the micro-batches of an
/// iteration: TE's is_first_microbatch, so 1 / micro-batches per iteration).
struct Fp8 {
  Fp8Recipe recipe = Fp8Recipe::None;
  Precision high = Precision::Bf16;
  double weight_share = 1;
  bool enabled() const { return recipe != Fp8Recipe::None; }
  /// The precision of the recipe's GEMM operands (fp8, mxfp8 or nvfp4); high without a recipe.
  Precision gemm_precision() const;
  /// Whether the recipe has a separate amax pass before each cast (fp8-cs, nvfp4).
  bool amax_pass() const { return recipe == Fp8Recipe::Current || recipe == Fp8Recipe::Nvfp4; }
};

const std::vector<std::string>& fp8_recipe_names();  ///< "none", "fp8-delayed", "fp8-cs", "mxfp8", "nvfp4"
/// ScenarioError at `path` for an unknown name.
Fp8Recipe fp8_recipe_from_name(const std::string& name, const std::string& path);

}  // namespace llmsim::model
