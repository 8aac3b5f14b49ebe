// MoE in a training run: the straggler rank's expert time sets the layer time, parameter counts of the MoE
// presets against their papers, and bad MoE input as one clear error.
#include <gtest/gtest.h>

#include <algorithm>

#include "../support/scenarios.hpp"
#include "llmsim/engine/engine.hpp"
#include "llmsim/hardware/compute_model.hpp"
#include "llmsim/model/moe.hpp"
#include "llmsim/strategy/pipeline_schedule.hpp"
#include "llmsim/strategy/training_strategies.hpp"
#include "llmsim/util/error.hpp"
#include "llmsim/workload/chunk_passes.hpp"
#include "llmsim/workload/training.hpp"

using namespace llmsim;
using workload::TimeCategory;

namespace {
ScenarioError load_error(const std::vector<std::string>& overrides) {
  return test::error_of([&] { test::shipped("scenarios/moe/olmoe-ep8-a100.json", overrides); });
}
}  // namespace

TEST(MoeTraining, TheStragglerRankSetsTheLayerTime) {
  // One node, ep 8, Zipf-skewed routing with contiguous placement: ranks get very different token loads. Every
  // rank waits at the all-to-alls for the most loaded one, so compute + ep wait is the same on every rank and
  // the most loaded rank waits least.
  const auto s = test::shipped("scenarios/moe/olmoe-ep8-a100.json",
                               {"cluster.nodes=1", "routing={\"name\": \"zipf\", \"skew\": 1.5}", "training.global_batch=16"});
  const hardware::ComputeModel cm(s.hardware);
  const auto plan = workload::build_training(s, cm, strategy::build_training_strategies(s));
  const auto rec = engine::run_workload(plan.workload, s, std::vector<bool>(plan.workload.workers.size(), false));
  std::vector<double> compute, wait;
  for (const auto& b : rec.busy()) {
    compute.push_back(b[static_cast<int>(TimeCategory::Gemm)] + b[static_cast<int>(TimeCategory::Attention)] +
                      b[static_cast<int>(TimeCategory::Elementwise)]);
    wait.push_back(b[static_cast<int>(TimeCategory::EpComm)]);
  }
  const auto straggler = std::max_element(compute.begin(), compute.end()) - compute.begin();
  EXPECT_GT(compute[straggler], 1.05 * *std::min_element(compute.begin(), compute.end()));
  EXPECT_EQ(std::min_element(wait.begin(), wait.end()) - wait.begin(), straggler);
  for (size_t r = 0; r < compute.size(); ++r)
    EXPECT_NEAR(compute[r] + wait[r], compute[straggler] + wait[straggler], 0.01 * (compute[straggler] + wait[straggler]))
        << "rank " << r;
}

TEST(MoeTraining, ExpertReplicasCostTheMemoryOfTheirParameters) {
  // replicate-hot with 2 extra slots: every device of ep 8 holds 8 + 2 experts in each of OLMoE's 16 MoE layers, 2 x
  // 16 x 3 x 2048 x 1024 parameters more than contiguous, each with bf16 weights (2 bytes), fp32 gradients (4) and
  // fp32 master weights and Adam moments (12), the software's ZeRO 0 unsharded.
  auto stage = [](const std::string& placement) {
    const auto s = test::shipped("scenarios/moe/olmoe-ep8-a100.json",
                                 {"training.global_batch=16", "strategies.expert_placement=" + placement});
    const hardware::ComputeModel cm(s.hardware);
    return workload::plan_training(s, cm, strategy::build_training_strategies(s)).stages.at(0).memory;
  };
  const auto plain = stage("contiguous");
  const auto replicated = stage("{\"name\": \"replicate-hot\", \"extra_slots\": 2}");
  const double params = 2.0 * 16 * 3 * 2048 * 1024;
  EXPECT_DOUBLE_EQ(replicated.weights - plain.weights, 2 * params);
  EXPECT_DOUBLE_EQ(replicated.gradients - plain.gradients, 4 * params);
  EXPECT_DOUBLE_EQ(replicated.optimizer - plain.optimizer, 12 * params);
  EXPECT_EQ(replicated.activations, plain.activations);
}

TEST(MoeModels, ParameterCountsMatchThePublishedSizes) {
  // Mixtral 46.7B, Qwen3-30B-A3B 30.5B, OLMoE 6.9B, DeepSeekMoE 16.4B within 2%; DeepSeek-V3 671B (its technical
  // report's abstract, without the MTP module) within 0.5% with its multi-head latent attention; Kimi K2 1.04T (its
  // technical report) within 1.5%.
  for (const auto& [name, published, tolerance] : std::vector<std::tuple<std::string, double, double>>{
           {"mixtral-8x7b", 46.7, 0.02}, {"qwen3-30b-a3b", 30.5, 0.02}, {"olmoe-1b-7b", 6.9, 0.02},
           {"deepseek-moe-16b", 16.4, 0.02}, {"deepseek-v3", 671, 0.005}, {"kimi-k2", 1040, 0.015}}) {
    const auto s = test::shipped("scenarios/default.json", {"model=" + name, "training.seq_len=2048",
                                                            "strategies.pipeline_schedule=1f1b"});
    EXPECT_NEAR(model::model_params(s.model) / 1e9 / published, 1.0, tolerance) << name;
  }
}

TEST(MoeErrors, TopKAboveExperts) {
  const auto e = load_error({"model.moe.top_k=65"});
  EXPECT_EQ(e.path(), "/model/moe/top_k");
}

TEST(MoeErrors, EpNotDividingTheExperts) {
  const auto e = load_error({"parallelism.ep=16", "cluster.nodes=4", "model.moe.experts=24", "model.moe.top_k=2"});
  EXPECT_EQ(e.path(), "/parallelism/ep");
  EXPECT_NE(std::string(e.what()).find("does not divide the 24 experts"), std::string::npos) << e.what();
}

TEST(MoeErrors, EpNotDividingDp) {
  const auto e = load_error({"parallelism.ep=3"});
  EXPECT_EQ(e.path(), "/parallelism/ep");
}

TEST(MoeErrors, MalformedCoactivationFile) {
  const auto e = load_error({"routing={\"name\": \"coactivation\", \"file\": \"../../tests/moe/data/bad-coactivation.json\"}"});
  EXPECT_EQ(e.path(), "/routing/file");
  EXPECT_NE(std::string(e.what()).find("must be an array of 64 numbers"), std::string::npos) << e.what();
}

TEST(MoeErrors, NumberOverflowInCoactivationFile) {
  const auto e = load_error({"routing={\"name\": \"coactivation\", \"file\": \"../../tests/moe/data/overflow-coactivation.json\"}"});
  EXPECT_EQ(e.path(), "/routing/file");
  EXPECT_NE(std::string(e.what()).find("number overflow"), std::string::npos) << e.what();
}

TEST(MoeErrors, MissingCoactivationFile) {
  const auto e = load_error({"routing={\"name\": \"coactivation\", \"file\": \"no-such-file.json\"}"});
  EXPECT_EQ(e.path(), "/routing/file");
}

TEST(MoePipeline, TutelQueuesEveryDispatchChunkThenPipelinesExpertsAndCombines) {
  // Forward of an OLMoE layer with R = 2: [attention, pre] then dispatch x2 queued; per chunk: wait its
  // dispatch, the chunk's experts, queue its combine; the next block waits for both combines.
  const auto s = test::shipped("scenarios/moe/olmoe-ep8-a100.json", {"cluster.nodes=1", "training.global_batch=16",
                                                                     "strategies.moe_pipeline={\"name\": \"tutel\", \"chunks\": 2}"});
  const hardware::ComputeModel cm(s.hardware);
  const auto strategies = strategy::build_training_strategies(s);
  const auto plan = workload::plan_moe(s, *strategies.routing, *strategies.expert_placement);
  std::vector<workload::ComputeCost> costs;
  const auto passes = workload::build_chunk_passes(s, cm, {s.model.layers}, costs, &plan, 0, strategy::MoeLayout{2});
  const auto& f = passes[0].forward.fused;
  const int dispatch = workload::moe_exchange_key(0, workload::Exchange::Dispatch),
            combine = workload::moe_exchange_key(0, workload::Exchange::Combine);
  ASSERT_GE(f.size(), 4u);
  EXPECT_EQ(f[0].starts, (std::vector<int>{dispatch, dispatch}));
  for (int c : {1, 2}) {
    EXPECT_EQ(f[c].waits, (std::vector<int>{dispatch}));
    EXPECT_EQ(f[c].starts, (std::vector<int>{combine}));
    EXPECT_EQ(f[c].compute, f[1].compute);  // the same chunk of work twice
  }
  EXPECT_EQ(f[3].waits, (std::vector<int>{combine, combine}));
  // Each expert GEMM of a chunk sees half the tokens: the chunk's FLOPs are half of all experts' FLOPs.
  const auto x = model::LayerShape::from(s);
  double all = 0;
  for (double n : plan.traffic[0].slot_tokens[0]) all += model::total_flops(model::expert_forward(x, s.model.moe, n));
  EXPECT_NEAR(costs[f[1].compute].flops, all / 2, 1e-6 * all);
}

TEST(MoePipeline, TutelWithBraidedScheduleIsAnError) {
  EXPECT_THROW(test::shipped("scenarios/moe/olmoe-ep8-a100.json",
                             {"strategies.pipeline_schedule=stp", "parallelism.pp=2", "parallelism.ep=4",
                              "strategies.moe_pipeline={\"name\": \"tutel\", \"chunks\": 2}"}),
               ScenarioError);
}
