// Memory model against the ZeRO paper (Rajbhandari et al., SC'20, Fig. 1) and Korthikanti et al. 2022 (Table 2,
// GPT-3 175B shape of their Table 3).
#include <gtest/gtest.h>

#include <algorithm>

#include "../support/scenarios.hpp"
#include "llmsim/hardware/compute_model.hpp"
#include "llmsim/strategy/training_strategies.hpp"
#include "llmsim/workload/memory.hpp"
#include "llmsim/workload/build_plan.hpp"
#include "llmsim/workload/training.hpp"

using namespace llmsim;

namespace {
/// 64 data-parallel GPUs in fp16 without activations: the ZeRO paper's setting (Psi = 7.5B, N_d = 64, K = 12).
double zero_total(int stage) {
  const auto s = test::shipped("scenarios/default.json",
                               {"cluster.nodes=8", "parallelism.tp=1", "parallelism.pp=1", "training.precision=fp16",
                                "training.recompute=none", "strategies.pipeline_schedule=1f1b",
                                "training.zero_stage=" + std::to_string(stage)});
  return workload::stage_memory(s, 7.5e9, 0, 0).total();
}
}  // namespace

TEST(MemoryModel, ZeroStagesReproduceTheZeroPaperFigure1) {
  EXPECT_DOUBLE_EQ(zero_total(0), 120e9);                   // (2 + 2 + K) Psi
  EXPECT_DOUBLE_EQ(zero_total(1), 15e9 + 15e9 + 90e9 / 64);  // 31.4 GB
  EXPECT_DOUBLE_EQ(zero_total(2), 15e9 + 105e9 / 64);        // 16.6 GB
  EXPECT_DOUBLE_EQ(zero_total(3), 120e9 / 64);               // 1.9 GB
}

TEST(MemoryModel, ActivationsPerLayerOfGpt3_175bMatchKorthikantiTable2) {
  // s = 2048, b = 1, h = 12288, a = 96, t = 8.
  const double sbh = 2048.0 * 12288;
  const auto base = test::shipped("scenarios/default.json",
                                  {"model=gpt3-175b", "parallelism.tp=8", "parallelism.pp=2", "training.seq_len=2048"});
  EXPECT_DOUBLE_EQ(workload::layer_activation_bytes(base, "none"), sbh * (10 + 24.0 / 8 + 5.0 * 96 * 2048 / (12288 * 8)));
  EXPECT_DOUBLE_EQ(workload::layer_activation_bytes(base, "selective"), sbh * (10 + 24.0 / 8));
  EXPECT_DOUBLE_EQ(workload::layer_activation_bytes(base, "full"), 2 * sbh);
  const auto sp = test::shipped("scenarios/default.json", {"model=gpt3-175b", "parallelism.tp=8", "parallelism.pp=2",
                                                           "training.seq_len=2048", "parallelism.sequence_parallel=true"});
  EXPECT_DOUBLE_EQ(workload::layer_activation_bytes(sp, "selective"), sbh * 34 / 8);
  EXPECT_DOUBLE_EQ(workload::layer_activation_bytes(sp, "none"), sbh * (34.0 / 8 + 5.0 * 96 * 2048 / (12288 * 8)));
}

TEST(MemoryModel, Fp32ActivationsKeepFourBytesPerElementButOneBytePerDropoutMask) {
  // Korthikanti's Table 2 terms with every 16-bit tensor at 4 bytes: N = 4 x 4 + 2 masks = 18, T = 2 x 24 = 48,
  // attention (4 softmax + 1 mask + 4 dropout output) a s / (h t). GPT-3 175B shape, s = 2048, t = 8.
  const double sbh = 2048.0 * 12288;
  const auto s = test::shipped("scenarios/default.json", {"model=gpt3-175b", "parallelism.tp=8", "parallelism.pp=2",
                                                          "training.seq_len=2048", "training.precision=fp32"});
  EXPECT_DOUBLE_EQ(workload::layer_activation_bytes(s, "none"), sbh * (18 + 48.0 / 8 + 9.0 * 96 * 2048 / (12288 * 8)));
  EXPECT_DOUBLE_EQ(workload::layer_activation_bytes(s, "full"), 4 * sbh);
}

TEST(MemoryModel, MoeLayerActivationsFollowTheRoutedTokens) {
  // Mixtral's shape (h 4096, 32 heads of 128, 8 KV heads, SwiGLU, top-2, f = f_e = 14336 = 3.5h, no dropout),
  // s = 4096, b = 1, tp 2, selective recomputation. Dense layer: replicated QKV and FC1 inputs and two norm inputs,
  // 8 sbh; per rank Q and projection input 4 / 2 = 2, K and V 4 x (8 x 128 / 4096) / 2 = 0.5, SwiGLU's gate, up
  // and product 6 x 3.5 / 2 = 10.5: 8 + 2 + 0.5 + 10.5 = 21 sbh. The MoE layer trades the MLP
  // input (2) and the 10.5 of intermediates for 2 copies (4) and 6 x 2 x 3.5 / 2 = 21 of expert intermediates:
  // 21 - 2 - 10.5 + 4 + 21 = 33.5 sbh.
  const auto s = test::shipped("scenarios/default.json", {"model=mixtral-8x7b", "training.seq_len=4096",
                                                          "training.recompute=selective", "strategies.pipeline_schedule=1f1b"});
  const double sbh = 4096.0 * 4096;
  EXPECT_DOUBLE_EQ(workload::layer_activation_bytes(s, "selective"), 21 * sbh);
  EXPECT_DOUBLE_EQ(workload::moe_layer_activation_bytes(s, "selective"), 33.5 * sbh);
  EXPECT_DOUBLE_EQ(workload::moe_layer_activation_bytes(s, "full"), 2 * sbh);
  EXPECT_DOUBLE_EQ(workload::chunk_activation_bytes(s, 0, 3, "selective"), 100.5 * sbh);
}

TEST(MemoryModel, Fp8KeepsTheExpertsGemmInputsInOneByte) {
  // The Mixtral layer above on H100 with FP8 (per-tensor scaling). Attention: the QKV input sbh and the projection
  // input 4096/4096 sbh / 2 lose a byte each, 1.5 sbh. Experts (Transformer Engine's GroupedLinear keeps FP8
  // copies): the 2 permuted copies of FC1's input, 2 sbh, and the 2 FC2 inputs of 3.5 sbh / 2 each, 3.5 sbh:
  // 7 sbh in all. Under moe_act recomputation the FC2 inputs are not kept at all: 3.5 sbh.
  const std::vector<std::string> base = {"model=mixtral-8x7b", "training.seq_len=4096", "training.recompute=selective",
                                         "strategies.pipeline_schedule=1f1b", "hardware=H100-SXM5-80GB"};
  auto bytes = [&](const std::vector<std::string>& extra) {
    auto overrides = base;
    overrides.insert(overrides.end(), extra.begin(), extra.end());
    return workload::moe_layer_activation_bytes(test::shipped("scenarios/default.json", overrides), "selective");
  };
  const double sbh = 4096.0 * 4096;
  EXPECT_DOUBLE_EQ(bytes({}) - bytes({"training.fp8=fp8-cs"}), 7 * sbh);
  const std::string act = "training.recompute_modules.moe_act=true";
  EXPECT_DOUBLE_EQ(bytes({act}) - bytes({act, "training.fp8=fp8-cs"}), 3.5 * sbh);
}

TEST(MemoryModel, FusedAttentionKeepsTheProjectionInputIn16BitsUnderFp8) {
  // With fused attention the kernel keeps its output (the projection's input, a d/h sbh/t) in 16 bits. Under
  // current scaling Megatron-Core's projection saves that same tensor: 2 bytes. Under delayed scaling it keeps its
  // FP8 copy beside it: 3 bytes. Unfused, only the FP8 copy: 1 byte, so fused FP8 keeps 1 byte more than unfused
  // on that term and delayed 1 byte more than current scaling.
  auto layer = [](const std::string& recipe, const std::string& attention) {
    const auto s = test::shipped("scenarios/default.json", {"hardware=H100-SXM5-80GB", "training.fp8=" + recipe,
                                                            "training.attention=" + attention});
    const double out = double(s.model.heads) * s.model.head_dim / s.model.hidden;
    const double sbh = double(s.training.seq_len) * s.training.micro_batch * s.model.hidden;
    return std::make_pair(workload::layer_activation_bytes(s, "selective"), out * sbh / s.parallelism.tp);
  };
  const auto [delayed, term] = layer("fp8-delayed", "flash");
  EXPECT_DOUBLE_EQ(delayed - layer("fp8-cs", "flash").first, term);
  EXPECT_DOUBLE_EQ(layer("fp8-cs", "unfused").first - layer("none", "unfused").first,
                   layer("fp8-cs", "flash").first - layer("none", "flash").first - term);
}

TEST(MemoryModel, LlamaLayersKeepTheirOwnShapesAndNoDropoutMasks) {
  // Korthikanti's 34 sbh/t (with SP) counts GPT's MHA, 4h GeLU MLP and two 1-byte dropout masks. Llama 3 405B
  // (h 16384, 128 heads of 128, 8 KV heads, SwiGLU f = 53248 = 3.25h, no dropout) at tp 8 with SP: QKV and FC1
  // inputs and two norm inputs 8; Q and projection input 4; K and V 4 x 8 x 128 / 16384 = 0.25; SwiGLU 6 x 3.25 =
  // 19.5: 31.75 sbh / 8, plus the flash logsumexp b a s / t fp32.
  const auto s = test::shipped("scenarios/default.json",
                               {"hardware=H100-SXM5-80GB", "model=llama3-405b", "parallelism.tp=8", "parallelism.pp=2",
                                "strategies.pipeline_schedule=1f1b", "parallelism.sequence_parallel=true",
                                "training.seq_len=8192", "training.attention=flash"});
  const double sbh = 8192.0 * 16384, lse = 4.0 * 128 * 8192 / 8;
  EXPECT_DOUBLE_EQ(workload::layer_activation_bytes(s, "none"), sbh * 31.75 / 8 + lse);
}

TEST(MemoryModel, FusedAttentionKeepsNoScoreTensorsButTheLogsumexp) {
  // GPT-3 175B shape on H100 (which has a fused-attention calibration), tp 8 with SP: Korthikanti's 34/t
  // without the 5as/(ht) score terms, plus b*a*s/t fp32 logsumexp values.
  const double sbh = 2048.0 * 12288, lse = 4.0 * 96 * 2048 / 8;
  const std::vector<std::string> base = {"hardware=H100-SXM5-80GB", "model=gpt3-175b", "parallelism.tp=8",
                                         "parallelism.pp=2", "training.seq_len=2048",
                                         "parallelism.sequence_parallel=true"};
  auto with = [&](std::vector<std::string> more) {
    more.insert(more.begin(), base.begin(), base.end());
    return test::shipped("scenarios/default.json", more);
  };
  const auto flash = with({"training.attention=flash"});
  EXPECT_DOUBLE_EQ(workload::layer_activation_bytes(flash, "none"), sbh * 34 / 8 + lse);
  EXPECT_DOUBLE_EQ(workload::layer_activation_bytes(flash, "selective"), sbh * 34 / 8 + lse);
  EXPECT_DOUBLE_EQ(workload::layer_activation_bytes(flash, "full"), 2 * sbh / 8);
  EXPECT_DOUBLE_EQ(workload::layer_activation_bytes(with({}), "none"), sbh * (34.0 / 8 + 5.0 * 96 * 2048 / (12288 * 8)));
}

TEST(MemoryModel, Fp8KeepsTheInputsOfItsGemmsInFp8AndCachesTheFp8Weights) {
  // tp 8 without SP: QKV and FC1 inputs sbh each (replicated), projection input sbh/8, FC2 input 4sbh/8 saved
  // in 1 byte instead of 2.
  const double sbh = 2048.0 * 12288;
  const auto s = test::shipped("scenarios/default.json", {"hardware=H100-SXM5-80GB", "model=gpt3-175b",
                                                          "parallelism.tp=8", "parallelism.pp=2",
                                                          "training.seq_len=2048", "training.fp8=fp8-cs"});
  EXPECT_DOUBLE_EQ(workload::layer_activation_bytes(s, "none"),
                   sbh * (10 + 24.0 / 8 + 5.0 * 96 * 2048 / (12288 * 8)) - sbh * (2 + 5.0 / 8));
  EXPECT_DOUBLE_EQ(workload::layer_activation_bytes(s, "full"), 2 * sbh);  // the layer input stays 16-bit
  // FP8 weight and transpose: 2 bytes per linear-layer parameter of this rank (biases included, GPT-3 shape).
  const double h = 12288, linear = (4 * h * h + 4 * h) + (8 * h * h + 5 * h);
  EXPECT_DOUBLE_EQ(workload::fp8_weight_copy_bytes(s, 0, 3), 3 * 2 * linear / 8);
  const auto bf16 = test::shipped("scenarios/default.json", {"model=gpt3-175b", "parallelism.tp=8"});
  EXPECT_EQ(workload::fp8_weight_copy_bytes(bf16, 0, 3), 0);
}

TEST(MemoryModel, Llama3_405bAt8kFitsWithoutRecomputationOnlyWithFusedAttention) {
  // Llama 3 405B on H100, tp 8, pp 16 (interleaved, v 2), SP, seq 8192, micro-batch 1, dp 16; gradients and
  // optimizer states sharded over dp (the Llama 3 paper's FSDP, Sec. 3.3.2: ZeRO-2), no recomputation.
  auto peak = [](const std::string& attention) {
    const auto s = test::shipped(
        "scenarios/default.json",
        {"hardware=H100-SXM5-80GB", "model=llama3-405b", "cluster.nodes=256", "parallelism.tp=8",
         "parallelism.pp=16", "parallelism.last_stage_layers=6", "parallelism.sequence_parallel=true",
         "training.global_batch=256", "training.seq_len=8192", "training.zero_stage=2", "training.recompute=none",
         R"(strategies.pipeline_schedule={"name":"interleaved-1f1b","virtual_stages":2})",
         "training.attention=" + attention});
    const hardware::ComputeModel cm(s.hardware);
    const auto plan = workload::plan_training(s, cm, strategy::build_training_strategies(s));
    double most = 0;
    for (const auto& st : plan.stages) most = std::max(most, st.memory.total());
    return most / s.hardware.memory_bytes;
  };
  EXPECT_LT(peak("flash"), 1.0);    // 72.8 of 79.6 GiB
  EXPECT_GT(peak("unfused"), 4.0);  // 329 GiB: the s^2 softmax outputs of 8192-token sequences
}

TEST(MemoryModel, APlanThatDoesNotFitGetsNoOps) {
  // 2^31 - 1 FFN width: 2 x 2304 x (2^31 - 1) = 1e13 weights per layer, far beyond 80 GiB of HBM;
  // its millions of gradient buckets were built into ops (28 s) before the plan was found not to fit.
  const auto huge = test::shipped("scenarios/default.json", {"model.ffn_hidden=2147483647"});
  const hardware::ComputeModel cm(huge.hardware);
  const auto plan = workload::build_plan(huge, cm, strategy::build_training_strategies(huge));
  EXPECT_FALSE(workload::fits_memory(plan, huge));
  ASSERT_FALSE(plan.workload.workers.empty());
  for (const auto& w : plan.workload.workers) EXPECT_TRUE(w.ops.empty());
  const auto fits = test::shipped("scenarios/default.json");
  const auto built = workload::build_plan(fits, cm, strategy::build_training_strategies(fits));
  EXPECT_TRUE(workload::fits_memory(built, fits));
  for (const auto& w : built.workload.workers) EXPECT_FALSE(w.ops.empty());
}
