// The one precision table (model/precision.hpp), FP8 linear layers as Transformer Engine runs them
// (model/fp8.hpp) and the fused attention kernel (model/fused_attention.hpp): every number derived by hand.
#include <gtest/gtest.h>

#include <map>

#include "../support/scenarios.hpp"
#include "llmsim/hardware/compute_model.hpp"
#include "llmsim/model/fp8.hpp"
#include "llmsim/model/fused_attention.hpp"
#include "llmsim/serving/step_model.hpp"
#include "llmsim/util/error.hpp"
#include "llmsim/workload/memory.hpp"

using namespace llmsim;
using model::Precision;

namespace {

std::map<std::string, model::Kernel> by_name(const std::vector<model::Kernel>& ks) {
  std::map<std::string, model::Kernel> out;
  for (const auto& k : ks) out.emplace(k.name, k);
  return out;
}

/// One layer on one GPU: T = 2048 tokens, h = 4096, 32 heads of 128, f = 16384 (GeLU), no tp.
model::LayerShape layer(model::Fp8Recipe recipe) {
  model::LayerShape x;
  x.b = 1, x.s = 2048, x.h = 4096, x.a = 32, x.kv = 32, x.d = 128, x.f = 16384, x.t = 1;
  x.fp8.recipe = recipe;
  x.fp8.weight_share = 0.25;  // 4 micro-batches share one weight cast
  return x;
}

std::vector<model::Kernel> whole_layer(const model::LayerShape& x) {
  const auto f = model::layer_forward(x);
  return model::concat(model::concat(f, model::backward_input(f)), model::backward_weight(f));
}

}  // namespace

TEST(Precision, BytesPeakKeyAndKindFromTheOneTable) {
  const std::map<std::string, double> bytes = {{"fp64", 8}, {"fp32", 4},   {"tf32", 4},          {"bf16", 2},
                                               {"fp16", 2}, {"fp8", 1},    {"int8", 1},          {"mxfp8", 1.03125},
                                               {"nvfp4", 0.5625}};
  ASSERT_EQ(model::precision_names().size(), bytes.size());
  for (const auto& name : model::precision_names()) {
    const Precision p = model::precision_from_name(name, "/x");
    EXPECT_EQ(model::bytes_per_element(p), bytes.at(name)) << name;
    EXPECT_EQ(model::peak_key(p), name);
  }
  EXPECT_EQ(model::precision_kind(Precision::Tf32), model::PrecisionKind::ComputeOnly);
  EXPECT_EQ(model::precision_kind(Precision::Mxfp8), model::PrecisionKind::BlockScaled);
  EXPECT_EQ(model::precision_kind(Precision::Bf16), model::PrecisionKind::Storage);
  EXPECT_EQ(model::gradient_bytes_per_param(Precision::Bf16, true), 4);  // fp32 main gradients
  EXPECT_EQ(model::gradient_bytes_per_param(Precision::Bf16, false), 2);  // reduced in bf16
  EXPECT_EQ(model::gradient_bytes_per_param(Precision::Fp16, true), 2);
  const auto e = test::error_of([] { model::precision_from_name("fp12", "/serving/precision"); });
  EXPECT_EQ(e.path(), "/serving/precision");
}

TEST(Precision, EverySiteUsesTheTable) {
  // tf32 is stored as fp32: 4 bytes in the kernels, the memory model, serving and the fault run's checkpoint.
  const auto s = test::shipped("scenarios/default.json", {"training.precision=tf32"});
  EXPECT_EQ(model::LayerShape::from(s).bytes_per_element(), 4);
  EXPECT_EQ(workload::state_memory(s, 1e9).weights, 4e9);
  EXPECT_EQ(workload::state_memory(s, 1e9).gradients, 4e9);
  const auto v = test::shipped("scenarios/serving/llama2-70b-a100-code.json", {"serving.precision=tf32"});
  EXPECT_EQ(serving::serving_shape(v).bytes_per_element(), 4);
  EXPECT_EQ(serving::serving_shape(v).precision, Precision::Tf32);
}

TEST(Fp8Training, LinearGemmsRunAtTheFp8PeakWithTheirCastKernels) {
  const auto h100 = test::shipped("scenarios/default.json", {"hardware=H100-SXM5-80GB"});
  const hardware::ComputeModel cm(h100.hardware);
  const auto bf16 = by_name(whole_layer(layer(model::Fp8Recipe::None)));
  const auto fp8 = by_name(whole_layer(layer(model::Fp8Recipe::Current)));
  const double o = h100.hardware.calibration.kernel_overhead, ratio = 989.4 / 1978.9;
  for (const std::string g : {"qkv", "attn_proj", "ffn_up", "ffn_down"})
    for (const std::string pass : {"", "_dgrad", "_wgrad"}) {
      const auto& a = bf16.at(g + pass);
      const auto& b = fp8.at(g + pass);
      EXPECT_EQ(a.precision, Precision::Bf16);
      EXPECT_EQ(b.precision, Precision::Fp8);
      EXPECT_DOUBLE_EQ(a.flops, b.flops);
      EXPECT_NEAR((cm.kernel_time(b) - o) / (cm.kernel_time(a) - o), ratio, 1e-12) << g + pass;  // compute bound
    }
  // The attention core, norms and element-wise kernels stay BF16 and identical.
  for (const std::string k : {"attn_scores", "softmax", "attn_over_v_dgrad", "input_norm", "gelu_dgrad"})
    EXPECT_DOUBLE_EQ(bf16.at(k).bytes, fp8.at(k).bytes) << k;
  EXPECT_EQ(fp8.at("attn_scores").precision, Precision::Bf16);
  // QKV: X 2048 x 4096, W 4096 x 12288, dY 2048 x 12288; high 2 bytes, fp8 1 byte.
  const double Tk = 2048.0 * 4096, kn = 4096.0 * 12288, Tn = 2048.0 * 12288;
  EXPECT_DOUBLE_EQ(fp8.at("qkv_input_amax").bytes, 2 * Tk);            // 16,777,216
  EXPECT_DOUBLE_EQ(fp8.at("qkv_input_cast").bytes, 33554432);          // (2 + 2 x 1) T k
  EXPECT_DOUBLE_EQ(fp8.at("qkv_weight_amax").bytes, 25165824);         // 2 k n / 4
  EXPECT_DOUBLE_EQ(fp8.at("qkv_weight_cast").bytes, 50331648);         // 4 k n / 4
  EXPECT_DOUBLE_EQ(fp8.at("qkv_grad_amax").bytes, 50331648);           // 2 T n
  EXPECT_DOUBLE_EQ(fp8.at("qkv_grad_cast").bytes, 100663296);          // 4 T n
  EXPECT_DOUBLE_EQ(fp8.at("qkv").bytes, 109051904);                    // T k + k n + 2 T n
  EXPECT_DOUBLE_EQ(fp8.at("qkv_dgrad").bytes, Tn + kn + 2 * Tk);       // 92,274,688
  EXPECT_DOUBLE_EQ(fp8.at("qkv_wgrad").bytes, 134217728);              // T k + T n + 2 k n
  EXPECT_EQ(fp8.size(), bf16.size() + 4 * 6);  // six cast/amax kernels per FP8 GEMM, nothing else added
  // Delayed scaling takes the amax inside the cast; MXFP8 writes two block-scaled copies (1 + 1/32 bytes).
  const auto delayed = by_name(whole_layer(layer(model::Fp8Recipe::Delayed)));
  EXPECT_EQ(delayed.count("qkv_input_amax"), 0u);
  EXPECT_EQ(delayed.size(), bf16.size() + 4 * 3);
  const auto mx = by_name(whole_layer(layer(model::Fp8Recipe::Mxfp8)));
  EXPECT_DOUBLE_EQ(mx.at("qkv_input_cast").bytes, (2 + 2 * 1.03125) * Tk);  // 34,078,720
  EXPECT_EQ(mx.at("qkv").precision, Precision::Mxfp8);
}

TEST(Fp8Training, AKernelWithoutItsPeakIsABugNotASilentDefault) {
  const auto a100 = test::shipped("scenarios/default.json");
  const hardware::ComputeModel cm(a100.hardware);
  const auto ks = model::layer_forward(layer(model::Fp8Recipe::Current));
  EXPECT_THROW(for (const auto& k : ks) cm.kernel_time(k), std::logic_error);
}

TEST(FusedAttention, FlopsAndBytesOfOneKernelByHand) {
  model::LayerShape x;  // b 2, s 4096, 32 heads (16 per rank), 8 kv heads (4 per rank), d 128, tp 2
  x.b = 2, x.s = 4096, x.h = 4096, x.a = 32, x.kv = 8, x.d = 128, x.f = 16384, x.t = 2, x.fused_attention = true;
  x.causal = false;
  const model::Kernel full = model::fused_attention_forward(x);
  EXPECT_DOUBLE_EQ(full.flops, 274877906944.0);  // 4 b (a/t) s^2 d
  x.causal = true;
  const model::Kernel k = model::fused_attention_forward(x);
  EXPECT_DOUBLE_EQ(k.flops, full.flops / 2);
  // Q, O: 2 x 8192 x 16 x 128; K, V: 2 x 8192 x 4 x 128 (2 bytes each); logsumexp 8192 x 16 fp32.
  EXPECT_DOUBLE_EQ(k.bytes, 84410368);
  const model::Kernel back = model::fused_attention_backward(k);
  EXPECT_DOUBLE_EQ(back.flops, 2.5 * k.flops);
  EXPECT_DOUBLE_EQ(back.bytes, 2 * k.bytes);
  // The layer has no s^2 tensor: its attention-category bytes are this kernel's only.
  double attention_bytes = 0;
  for (const auto& kk : model::attention_forward(x))
    if (kk.category == model::Category::Attention) attention_bytes += kk.bytes;
  EXPECT_DOUBLE_EQ(attention_bytes, k.bytes);
  EXPECT_TRUE(model::recomputed(model::attention_forward(x), "selective").empty());  // nothing stored to redo
  // Time on H100: F / (P * 0.662 * s / (s + 604)) + 2 us (compute bound).
  const auto h100 = test::shipped("scenarios/default.json", {"hardware=H100-SXM5-80GB"});
  const hardware::ComputeModel cm(h100.hardware);
  EXPECT_NEAR(cm.kernel_time(k), k.flops / (989.4e12 * 0.662 * 4096 / (4096 + 604)) + 2e-6, 1e-12);
  EXPECT_NEAR(cm.kernel_time(back), back.flops / (989.4e12 * 0.597 * 4096 / (4096 + 427)) + 2e-6, 1e-12);
}

TEST(Fp8Training, BlockScaledGemmsRunAtTheirFittedFractionsOfTheGemmEfficiency) {
  // B200: mxfp8 and fp8 share the 4,500 TFLOP/s peak; an MXFP8 GEMM reaches block_scaled_gemm_efficiency (0.903) of
  // the per-tensor FP8 GEMM's efficiency, so its compute time is 1 / 0.903 of it; a BF16 GEMM is not scaled.
  const auto b200 = test::shipped("scenarios/hardware/b200-llama3-70b.json");
  const hardware::ComputeModel cm(b200.hardware);
  const double o = b200.hardware.calibration.kernel_overhead;
  const auto fp8 = model::gemm("g", model::Category::Gemm, 1, 8192, 8192, 8192, Precision::Fp8);
  const auto mx = model::gemm("g", model::Category::Gemm, 1, 8192, 8192, 8192, Precision::Mxfp8);
  const auto bf16 = model::gemm("g", model::Category::Gemm, 1, 8192, 8192, 8192, Precision::Bf16);
  EXPECT_NEAR((cm.kernel_time(mx) - o) / (cm.kernel_time(fp8) - o), 1 / 0.903, 1e-12);
  EXPECT_NEAR((cm.kernel_time(bf16) - o) / (cm.kernel_time(fp8) - o), 4500.0 / 2250, 1e-12);
  // NVFP4 at twice the MXFP8 peak (9,000 TFLOP/s) and nvfp4_gemm_efficiency (0.735, carried from GB200) of the
  // MXFP8 GEMM's efficiency: (4500 / 9000) / 0.735 of the MXFP8 time.
  const auto fp4 = model::gemm("g", model::Category::Gemm, 1, 8192, 8192, 8192, Precision::Nvfp4);
  EXPECT_NEAR((cm.kernel_time(fp4) - o) / (cm.kernel_time(mx) - o), 4500.0 / 9000 / 0.735, 1e-12);
}

TEST(Fp8Training, Fp8PrimaryWeightsReplaceTheBf16Copies) {
  // Llama-3-70B, tp 8, FP8-CS: per layer 0.8565B GEMM weights (attention 8192 x (8192 + 2 x 1024) + 8192 x 8192 =
  // 150,994,944; SwiGLU MLP 3 x 8192 x 28672 = 704,643,072) / tp 8 = 106,954,752 on a GPU. Cached FP8 copies: row-wise
  // and transpose, 2 bytes each weight; FP8 primary weights (fp8_param_gather) drop the 2-byte BF16 copy: net 0.
  const auto cs = test::shipped("scenarios/hardware/b200-llama3-70b.json", {"training.fp8_param_gather=false"});
  const auto primary = test::shipped("scenarios/hardware/b200-llama3-70b.json", {"training.fp8_param_gather=true"});
  EXPECT_DOUBLE_EQ(workload::fp8_weight_copy_bytes(cs, 0, 1), 2 * 106954752.0);
  EXPECT_DOUBLE_EQ(workload::fp8_weight_copy_bytes(primary, 0, 1), 0.0);
}
