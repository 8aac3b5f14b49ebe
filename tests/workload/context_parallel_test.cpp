// Context parallelism (workload/context_parallel.hpp): the ring and Ulysses exchanges' bytes and groups, where the
// ranks go, the overlap structure of ring attention, the work and memory per GPU, against hand arithmetic.
#include <gtest/gtest.h>

#include <cmath>

#include "../support/scenarios.hpp"
#include "llmsim/hardware/compute_model.hpp"
#include "llmsim/model/fused_attention.hpp"
#include "llmsim/strategy/training_strategies.hpp"
#include "llmsim/workload/memory.hpp"
#include "llmsim/workload/training.hpp"

namespace llmsim {
namespace {

// GPT 1.7B (hidden 2304, 24 heads, seq 2048) on 2 nodes of 8 H100, tp 2, pp 2, flash attention, 1F1B.
std::vector<std::string> sets(std::vector<std::string> more) {
  std::vector<std::string> v = {"hardware=H100-SXM5-80GB", "training.attention=flash", "training.precision=bf16",
                                "strategies.pipeline_schedule=1f1b"};
  v.insert(v.end(), more.begin(), more.end());
  return v;
}

struct Built {
  scenario::Scenario s;
  workload::TrainingPlan plan;
};

Built build(std::vector<std::string> more) {
  Built b{test::shipped("scenarios/default.json", sets(std::move(more))), {}};
  const hardware::ComputeModel cm(b.s.hardware);
  b.plan = workload::build_training(b.s, cm, strategy::build_training_strategies(b.s));
  return b;
}

const workload::CollectiveSpec* find(const workload::Workload& w, const std::string& name) {
  for (const auto& c : w.collectives)
    if (c.name == name) return &c;
  return nullptr;
}

TEST(ContextParallel, RingPassesEveryKvChunkAroundTheGroup) {
  const auto b = build({"parallelism.cp=2"});
  EXPECT_EQ(b.s.parallelism.dp, 2);  // 16 GPUs / (tp 2 * pp 2 * cp 2)
  const auto* fwd = find(b.plan.workload, "cp ring kv");
  const auto* bwd = find(b.plan.workload, "cp ring kv+dkv");
  ASSERT_TRUE(fwd && bwd);
  // K and V of 1024 local tokens, 24/2 kv heads of 96 dims, 2 bytes: one chunk per rank, cp chunks gathered.
  const double chunk = 2.0 * 1024 * 12 * 96 * 2;
  EXPECT_DOUBLE_EQ(fwd->bytes, 2 * chunk);
  EXPECT_DOUBLE_EQ(bwd->bytes, 2 * fwd->bytes);
  EXPECT_EQ(fwd->kind, collectives::Kind::AllGather);
  EXPECT_EQ(fwd->algorithm, collectives::Algorithm::Ring);
  EXPECT_EQ(fwd->category, workload::TimeCategory::CpComm);
  // The group: cp ranks 0 and 1 of one stage and dp index; tp-cp-dp-pp puts them on consecutive tp groups.
  const auto& g = b.plan.workload.groups[fwd->group];
  ASSERT_EQ(g.size(), 2u);
  const auto& l = b.plan.layout;
  EXPECT_EQ(g[0], l.worker_of(0, 0));
  EXPECT_EQ(g[1], l.worker_of(0, 0 + l.dp));
  EXPECT_EQ(b.plan.workload.workers[g[1]].first_rank - b.plan.workload.workers[g[0]].first_rank, 2);
}

TEST(ContextParallel, RankOrderMovesTheCpGroup) {
  const auto b = build({"parallelism.cp=2", "parallelism.rank_order=tp-dp-cp-pp"});
  const auto& w = b.plan.workload;
  const auto& g = w.groups[find(w, "cp ring kv")->group];
  EXPECT_EQ(w.workers[g[1]].first_rank - w.workers[g[0]].first_rank, 2 * 2);  // tp * dp
  // pp slowest in both orders: stage 1 starts after the 8 GPUs of stage 0.
  EXPECT_EQ(w.workers[b.plan.layout.worker_of(1, 0)].first_rank, 8);
}

TEST(ContextParallel, RingAttentionRunsBesideItsKvPassAndWaitsBeforeTheLastChunk) {
  const auto b = build({"parallelism.cp=2"});
  const int key = workload::cp_exchange_key(workload::CpExchange::RingForward);
  const auto& pieces = b.plan.passes[0][0].forward.fused;
  size_t start = pieces.size();
  for (size_t i = 0; i < pieces.size() && start == pieces.size(); ++i)
    if (pieces[i].starts == std::vector<int>{key}) start = i;
  ASSERT_LT(start + 2, pieces.size());
  EXPECT_TRUE(pieces[start + 1].waits.empty());                // (cp-1)/cp of the core beside the pass
  EXPECT_EQ(pieces[start + 2].waits, std::vector<int>{key});  // the last chunk after it
  const auto& costs = b.plan.workload.costs;
  EXPECT_NEAR(costs[pieces[start + 1].compute].by_category[1] / (costs[pieces[start + 2].compute].by_category[1]), 1.0,
              0.05);  // cp 2: half and half of the attention core (the last piece adds no other attention kernel)
}

TEST(ContextParallel, SameWorkPerIterationAsDataParallelism) {
  // cp 2 x dp 2 and cp 1 x dp 4 process the same tokens with the same kernels: the causal attention of each
  // sequence is split, not repeated, so the executed FLOPs agree.
  const auto cp = build({"parallelism.cp=2"}), dp = build({});
  EXPECT_NEAR(cp.plan.hardware_flops, dp.plan.hardware_flops, dp.plan.hardware_flops * 1e-9);
  EXPECT_NEAR(cp.plan.model_flops, dp.plan.model_flops, dp.plan.model_flops * 1e-9);
}

TEST(ContextParallel, ActivationsPerGpuHalveWithCpTwo) {
  const auto one = test::shipped("scenarios/default.json", sets({}));
  const auto two = test::shipped("scenarios/default.json", sets({"parallelism.cp=2"}));
  EXPECT_DOUBLE_EQ(workload::layer_activation_bytes(two, "none"), workload::layer_activation_bytes(one, "none") / 2);
}

TEST(ContextParallel, FusedKernelDoesItsShareOfTheCausalWork) {
  auto x = model::LayerShape::from(test::shipped("scenarios/default.json", sets({"parallelism.cp=4"})));
  const double full = 4.0 * 1 * 12 * 2048.0 * 2048 * 96 / 2;  // causal, 24/2 heads, whole sequence
  const auto ring = model::fused_attention_forward(x);
  EXPECT_DOUBLE_EQ(ring.flops, full / 4);
  EXPECT_DOUBLE_EQ(ring.seq, 512);  // blocks of 512 queries x 512 keys
  x.ulysses = true;
  const auto ulysses = model::fused_attention_forward(x);
  EXPECT_DOUBLE_EQ(ulysses.flops, full / 4);
  EXPECT_DOUBLE_EQ(ulysses.seq, 2048);  // the whole sequence for 12/4 heads
}

TEST(ContextParallel, UlyssesExchangesQkvAndTheOutput) {
  const auto b = build({"parallelism.cp=2", "parallelism.cp_variant=ulysses"});
  const double tokens = 1024, e = 2, d = 96;
  const auto* in = find(b.plan.workload, "cp ulysses qkv");
  const auto* out = find(b.plan.workload, "cp ulysses out");
  ASSERT_TRUE(in && out);
  EXPECT_DOUBLE_EQ(in->bytes, tokens * (12 + 2 * 12) * d * e);
  EXPECT_DOUBLE_EQ(out->bytes, tokens * 12 * d * e);
  EXPECT_EQ(in->kind, collectives::Kind::AllToAll);
  EXPECT_EQ(find(b.plan.workload, "cp ring kv"), nullptr);
}

TEST(ContextParallel, GradientsAreReducedOverDpTimesCp) {
  const auto b = build({"parallelism.cp=2"});
  const auto& steps = b.plan.stages[0].sync.at_chunk_end.at(0).at(0);
  ASSERT_FALSE(steps.empty());
  EXPECT_EQ(b.plan.workload.groups[b.plan.workload.collectives[steps[0].collective].group].size(), 4u);
}

TEST(ContextParallel, BadInputNamesThePath) {
  auto path_of = [](std::vector<std::string> more) {
    return test::error_of([&] { test::shipped("scenarios/default.json", sets(std::move(more))); }).path();
  };
  EXPECT_EQ(path_of({"parallelism.cp=2", "training.attention=unfused"}), "/parallelism/cp");
  EXPECT_EQ(path_of({"parallelism.cp=2", "training.seq_len=2046"}), "/parallelism/cp");  // not a multiple of 2cp
  EXPECT_EQ(path_of({"parallelism.cp=8", "parallelism.pp=1", "parallelism.cp_variant=ulysses"}), "/parallelism/cp");
  EXPECT_EQ(path_of({"parallelism.cp=2", "parallelism.tp_variant=fal"}), "/parallelism/tp_variant");
  EXPECT_EQ(path_of({"parallelism.cp=2", "parallelism.rank_order=cp-tp-dp-pp"}), "/parallelism/rank_order");
  EXPECT_EQ(path_of({"parallelism.cp=2", "strategies.pipeline_schedule=stp"}), "/strategies/pipeline_schedule/name");
}

TEST(ContextParallel, SoftwarePresetFillsOnlyWhatTheScenarioLeavesOut) {
  const auto nemo = test::shipped("scenarios/default.json", {"hardware=H100-SXM5-80GB", "software=nemo-24.07",
                                                             "training.precision=bf16", "training.zero_stage=0"});
  EXPECT_EQ(nemo.software.name, "nemo-24.07");
  EXPECT_EQ(nemo.training.attention, "flash");                 // from the preset
  EXPECT_EQ(nemo.parallelism.tp_comm_overlap, "pipelined");    // from the preset
  EXPECT_FALSE(nemo.training.grad_reduce_in_fp32);             // from the preset
  EXPECT_EQ(nemo.training.zero_stage, 0);                      // the scenario's own value wins
  const auto plain = test::shipped("scenarios/default.json");
  EXPECT_EQ(plain.software.name, "megatron-2021");             // the default
  EXPECT_EQ(plain.training.attention, "unfused");
}

}  // namespace
}  // namespace llmsim
