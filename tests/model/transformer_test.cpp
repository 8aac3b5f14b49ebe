// FLOP and parameter counts against the closed forms of Narayanan et al., SC'21 (eq. 2 and eq. 3).
#include <gtest/gtest.h>

#include "../support/scenarios.hpp"
#include "llmsim/collectives/ring.hpp"
#include "llmsim/hardware/compute_model.hpp"
#include "llmsim/model/transformer.hpp"
#include "llmsim/strategy/pipeline_schedule.hpp"
#include "llmsim/strategy/training_strategies.hpp"
#include "llmsim/util/error.hpp"
#include "llmsim/workload/memory.hpp"
#include "llmsim/workload/training.hpp"

using namespace llmsim;

namespace {
workload::TrainingPlan plan_for(const scenario::Scenario& s) {
  const hardware::ComputeModel cm(s.hardware);
  return workload::build_training(s, cm, strategy::build_training_strategies(s));
}
}  // namespace

TEST(TransformerFlops, HardwareFlopsEqualMegatronEq3ForEveryTable1Row) {
  for (const char* name : {"gpt-1.7b", "gpt-18.4b", "gpt-145.6b", "gpt-1008b"}) {
    const auto s = test::shipped(std::string("scenarios/validation/") + name + ".json");
    const auto plan = plan_for(s);
    const double B = s.training.global_batch, seq = s.training.seq_len, l = s.model.layers, h = s.model.hidden,
                 V = s.model.vocab;
    const double eq3 = 96 * B * seq * l * h * h * (1 + seq / (6 * h) + V / (16 * l * h));
    EXPECT_NEAR(plan.hardware_flops / eq3, 1.0, 1e-12) << name;
    EXPECT_DOUBLE_EQ(model::megatron_eq3_flops(B, seq, l, h, V), eq3);
  }
}

TEST(TransformerFlops, ModelFlopsAreThreeForwardPassesWithoutRecomputation) {
  const auto s = test::shipped("scenarios/validation/gpt-39.1b.json");
  const auto plan = plan_for(s);
  const double B = s.training.global_batch, seq = s.training.seq_len, l = s.model.layers, h = s.model.hidden,
               V = s.model.vocab;
  // 72*B*s*l*h^2*(1 + s/(6h) + V/(12*l*h)): eq. 3 without the recomputed forward pass.
  const double expected = 72 * B * seq * l * h * h * (1 + seq / (6 * h) + V / (12 * l * h));
  EXPECT_NEAR(plan.model_flops / expected, 1.0, 1e-12);
}

TEST(TransformerFlops, SelectiveRecomputationAddsOnlyTheAttentionCore) {
  const auto s = test::shipped("scenarios/validation/gpt-18.4b.json", {"training.recompute=selective"});
  const auto x = model::LayerShape::from(s);
  // Recomputed: Q.K^T and attention over V, 2 * 2*b*s^2*h/t FLOPs per layer.
  EXPECT_DOUBLE_EQ(model::total_flops(model::recomputed(model::layer_forward(x), "selective")), 4 * x.b * x.s * x.s * x.h / x.t);
  EXPECT_DOUBLE_EQ(model::total_flops(model::recomputed(model::layer_forward(x), "none")), 0.0);
  EXPECT_DOUBLE_EQ(model::total_flops(model::recomputed(model::layer_forward(x), "full")), model::total_flops(model::layer_forward(x)));
}

TEST(TransformerParams, Gpt175bMatchesMegatronParameterFormula) {
  // Narayanan et al. SC'21 Sec. 5.1: P = 12*l*h^2*(1 + 13/(12h) + (V+s)/(12*l*h)).
  const auto s = test::shipped("scenarios/default.json", {"model=gpt3-175b", "model.vocab=51200"});
  const double l = s.model.layers, h = s.model.hidden, V = s.model.vocab, seq = s.model.max_seq_len;
  const double expected = 12 * l * h * h * (1 + 13 / (12 * h) + (V + seq) / (12 * l * h));
  EXPECT_DOUBLE_EQ(l * model::layer_params(s.model) + model::embedding_params(s.model), expected);
  EXPECT_NEAR(expected / 1e9, 174.6, 0.1);
}

TEST(TransformerParams, SwigluGqaLayerOfLlama3_70b) {
  const auto s = test::shipped("scenarios/default.json", {"model=llama3-70b"});
  const double h = 8192, f = 28672, d = 128;
  // q: h*h, k and v: 2*h*(8*d), o: h*h, FFN: 3*h*f, two RMSNorm weights: 2h; no biases.
  EXPECT_DOUBLE_EQ(model::layer_params(s.model), h * h + 2 * h * 8 * d + h * h + 3 * h * f + 2 * h);
}

TEST(ComputeModel, RooflineOfOneGemmAndOneElementwiseKernel) {
  const auto s = test::shipped("scenarios/default.json");
  const hardware::ComputeModel cm(s.hardware);
  const auto& c = s.hardware.calibration;
  const model::Kernel g{"g", model::Category::Gemm, 2.0 * 4096 * 4096 * 4096, 2.0 * 3 * 4096 * 4096, 4096, 4096, 4096, 1};
  const double g1 = 4096 / (4096 + c.matmul_half_dim);
  EXPECT_DOUBLE_EQ(cm.kernel_time(g), g.flops / (312e12 * c.matmul_efficiency * g1 * g1 * g1) + c.kernel_overhead);
  const model::Kernel e{"e", model::Category::Elementwise, 0, 1e9};
  EXPECT_DOUBLE_EQ(cm.kernel_time(e), 1e9 / (2039e9 * c.memory_efficiency) + c.kernel_overhead);
}

TEST(TensorParallelVariants, FalRemovesOneAllReducePerBlockAfterTheFirst) {
  auto tp_time = [](const std::string& variant) {
    const auto s = test::shipped("scenarios/validation/gpt-18.4b.json", {"parallelism.tp_variant=" + variant});
    const auto plan = plan_for(s);
    double forward = 0;
    for (const auto& c : plan.workload.costs)
      if (c.name == "F") forward += c.by_category[static_cast<int>(workload::TimeCategory::TpComm)];
    return forward;
  };
  const auto s = test::shipped("scenarios/validation/gpt-18.4b.json");
  const hardware::ComputeModel cm(s.hardware);
  const auto x = model::LayerShape::from(s);
  const double one = collectives::ring_time(collectives::Kind::AllReduce, 8, model::tp_activation_bytes(x),
                                            cm.nvlink_bandwidth(), cm.nvlink_latency());
  // 40 layers: Megatron 80 forward all-reduces, FAL 41 (+ the embedding's one in both).
  EXPECT_NEAR(tp_time("megatron") - tp_time("fal"), (s.model.layers - 1) * one, 1e-12);
  EXPECT_NEAR(tp_time("fal+"), tp_time("megatron"), 1e-15);
}

TEST(UnevenStages, LastStageLayersMoveWorkAndMemoryButKeepTheFlops) {
  // 80 layers over 8 stages, 3 on the last: the first seven hold 11 each.
  const auto even = test::shipped("scenarios/validation/gpt-145.6b.json", {"strategies.pipeline_schedule=1f1b"});
  const auto uneven = test::shipped("scenarios/validation/gpt-145.6b.json",
                                    {"strategies.pipeline_schedule=1f1b", "parallelism.last_stage_layers=3"});
  const auto a = plan_for(even), b = plan_for(uneven);
  EXPECT_EQ(b.stages.front().layers, 11);
  EXPECT_EQ(b.stages.back().layers, 3);
  EXPECT_NEAR(b.hardware_flops / a.hardware_flops, 1.0, 1e-12);
  EXPECT_LT(b.stages.back().params, a.stages.back().params);
  EXPECT_THROW(test::shipped("scenarios/validation/gpt-145.6b.json", {"parallelism.last_stage_layers=4"}), ScenarioError);
  // More than the layers leave one per chunk of the other stages: 80 - 7 x 1 = 73 at most (not an overflowing rest).
  const auto too_many = test::error_of([&] {
    test::shipped("scenarios/validation/gpt-145.6b.json",
                  {"strategies.pipeline_schedule=1f1b", "parallelism.last_stage_layers=2147483647"});
  });
  EXPECT_NE(too_many.message().find("at most 73 of the 80 layers"), std::string::npos) << too_many.message();
  // Left auto (layers / pp) the split is pp's doing: 25 layers on pp 2, v 2 put 12 on the last stage and 13 on the
  // first stage's 2 chunks; the error names pp, not a field the user never set.
  const auto odd = test::error_of([&] { test::shipped("scenarios/default.json", {"model.layers=25"}); });
  EXPECT_EQ(odd.path(), "/parallelism/pp");
  EXPECT_NE(odd.message().find("with last_stage_layers 12 (auto, layers / pp), the other 13"), std::string::npos)
      << odd.message();
}

TEST(MultiHeadLatentAttention, DeepSeekV3AttentionParamsFlopsAndBytes) {
  // DeepSeek-V3 (arXiv 2412.19437 Sec. 4.2): q_down 7168x1536, q_up 1536x(128x192), kv_down 7168x(512+64),
  // kv_up 512x(128x(128+128)), output 16384x7168, and the two latent norms' 1536 + 512 weights.
  const auto s = test::shipped("scenarios/default.json", {"model=deepseek-v3", "hardware=H100-SXM5-80GB",
                                                          "parallelism.tp=1",
                                                          "parallelism.pp=1", "strategies.pipeline_schedule=1f1b",
                                                          "training.seq_len=4096", "training.attention=\"flash\""});
  const double gemm_weights = 11010048.0 + 37748736 + 4128768 + 16777216 + 117440512;
  EXPECT_DOUBLE_EQ(model::attention_params(s.model), gemm_weights + 1536 + 512);
  const auto x = model::LayerShape::from(s);
  const auto unit = model::attention_forward(x);
  double gemm_flops = 0, core_flops = 0;
  for (const auto& k : unit) (k.is_gemm() ? gemm_flops : core_flops) += k.flops;
  const double T = 4096;  // one sequence of 4096 tokens
  EXPECT_DOUBLE_EQ(gemm_flops, 2 * T * gemm_weights);
  // Fused causal core: Q.K^T over 192-wide heads and P.V over 128-wide values, half of the s x s square.
  EXPECT_DOUBLE_EQ(core_flops, 0.5 * 2 * 128 * T * T * (192 + 128));
  // With context parallelism too: keys 192 wide, values 128.
  const auto ring = test::shipped("scenarios/default.json",
                                  {"model=deepseek-v3", "hardware=H100-SXM5-80GB", "parallelism.tp=1",
                                   "parallelism.pp=1", "parallelism.cp=2",
                                   "strategies.pipeline_schedule=1f1b", "training.seq_len=4096",
                                   "training.attention=\"flash\""});
  EXPECT_DOUBLE_EQ(model::LayerShape::from(ring).value_dim(), 128);
  EXPECT_DOUBLE_EQ(model::LayerShape::from(ring).d, 192);
}

TEST(MultiHeadLatentAttention, LatentFieldsNeedTheLatentAndServingRefusesIt) {
  EXPECT_EQ(test::error_of([] { test::shipped("scenarios/default.json", {"model.mla.q_lora_rank=64"}); }).path(),
            "/model/mla/q_lora_rank");
  EXPECT_EQ(test::error_of([] {
              test::shipped("scenarios/default.json", {"model=deepseek-v3", "model.kv_heads=8"});
            }).path(),
            "/model/kv_heads");
  const std::string serving = "scenarios/serving/llama2-70b-a100-code.json";
  EXPECT_EQ(test::error_of([&] { test::shipped(serving, {"model=deepseek-v3"}); }).path(),
            "/model/mla");
  // On a grouped-query model the refusal is MLA's, not the kv_heads it would need.
  EXPECT_EQ(test::error_of([&] { test::shipped(serving, {"model.mla.kv_lora_rank=64"}); }).path(), "/model/mla");
  EXPECT_EQ(test::error_of([&] { test::shipped(serving, {"parallelism.pipeline_layout=\"Et*80L\""}); }).path(),
            "/parallelism/pipeline_layout");
  EXPECT_EQ(test::error_of([&] { test::shipped(serving, {"model.mtp_layers=1"}); }).path(), "/model/mtp_layers");
}

TEST(MultiHeadLatentAttention, DeepSeekV3KimiK2AndMtpModelFlopsPerTokenMatchMegatronBridge) {
  // Megatron-Bridge 25.11 reports DeepSeek-V3 (w/o MTP) on 256 GB200 at 3139 tokens/s and 782 model TFLOP/s per
  // GPU: 249.1 GFLOP per token (data/validation/megatron-bridge-25.11-blackwell.csv), its own FLOP formula for MLA,
  // the dense and MoE layers and the head. llmsim's kernels, counted independently, must agree.
  // (On one 64-GPU domain with a smaller batch: the FLOPs per token do not depend on either.)
  const auto s = test::shipped("scenarios/validation/megatron-bridge-25.11-blackwell/"
                               "gb200-nvl72-deepseek-v3-256gpus-bf16.json",
                               {"cluster.nodes=1", "parallelism.ep=16", "training.global_batch=64"});
  const auto plan = plan_for(s);
  const double tokens = double(s.training.global_batch) * s.training.seq_len;
  EXPECT_NEAR(plan.model_flops / tokens / (782e12 / 3139), 1.0, 0.01);
  // Kimi K2 (64 MLA heads, 384 experts) on 256 GB300, 26.04.01: 1088 TFLOP/s at 5328 tokens/s per GPU.
  const auto kimi = test::shipped("scenarios/validation/megatron-bridge-26.02-26.04.01/"
                                  "r26.04.01-gb300-nvl72-kimi-k2-256gpus-fp8-mx.json",
                                  {"cluster.nodes=1", "parallelism.ep=16", "training.global_batch=128"});
  const double kimi_tokens = double(kimi.training.global_batch) * kimi.training.seq_len;
  EXPECT_NEAR(plan_for(kimi).model_flops / kimi_tokens / (1088e12 / 5328), 1.0, 0.01);
  // DeepSeek-V3 with its multi-token-prediction module (one more MoE layer, the projection and the shared head) on
  // 256 B200, 25.11: 557 TFLOP/s at 2139 tokens/s per GPU, 11.3 GFLOP per token more than without it.
  const auto mtp = test::shipped("scenarios/validation/megatron-bridge-25.11-blackwell/"
                                 "b200-deepseek-v3-256gpus-fp8-mx.json",
                                 {"cluster.nodes=16", "training.global_batch=128"});
  ASSERT_EQ(mtp.model.mtp_layers, 1);
  const double mtp_tokens = double(mtp.training.global_batch) * mtp.training.seq_len;
  EXPECT_NEAR(plan_for(mtp).model_flops / mtp_tokens / (557e12 / 2139), 1.0, 0.01);
}

TEST(RecomputeModules, MlaUpProjectionsAndMoeActivationByHand) {
  // DeepSeek-V3, tp 1, one 4096-token sequence, bf16. recompute_modules mla_up_proj replays q_up (1536 -> 128 x 192)
  // and kv_up (512 -> 128 x 256) and frees their outputs, 128 x 192 + 128 x 320 elements per token (queries; keys
  // and values); moe_act frees the routed experts' activation output, top-8 x 2048 elements per token.
  const std::vector<std::string> base = {"model=deepseek-v3", "hardware=H100-SXM5-80GB", "parallelism.tp=1",
                                         "parallelism.pp=1", "strategies.pipeline_schedule=1f1b",
                                         "training.seq_len=4096", "training.attention=\"flash\"",
                                         "training.recompute=selective"};
  auto with = [&](std::vector<std::string> extra) {
    extra.insert(extra.begin(), base.begin(), base.end());
    return test::shipped("scenarios/default.json", extra);
  };
  const auto plain = with({});
  const auto up = with({"training.recompute_modules.mla_up_proj=true"});
  const auto act = with({"training.recompute_modules.moe_act=true"});
  const auto x = model::LayerShape::from(up);
  const double T = 4096;
  EXPECT_DOUBLE_EQ(model::total_flops(model::recomputed(model::attention_forward(x), "selective",
                                                        up.training.recompute_modules)),
                   2 * T * (37748736.0 + 16777216));
  EXPECT_DOUBLE_EQ(workload::layer_activation_bytes(plain, "selective") - workload::layer_activation_bytes(up, "selective"),
                   T * (128 * 192 + 128 * 320) * 2);
  EXPECT_DOUBLE_EQ(workload::moe_layer_activation_bytes(plain, "selective") -
                       workload::moe_layer_activation_bytes(act, "selective"),
                   T * 8 * 2048 * 2);
  // They choose what selective recomputes: with another recompute they are an error, not ignored.
  EXPECT_EQ(test::error_of([&] { with({"training.recompute=none", "training.recompute_modules.moe_act=true"}); })
                .path(),
            "/training/recompute_modules");
}
