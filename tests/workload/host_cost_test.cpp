// What the host pays to issue a pass (software.kernel_launch_us, training.cuda_graph) and where a dropless MoE
// dispatcher makes it wait for the GPU; the engine's host timeline is tested in tests/engine/host_timeline_test.cpp.
#include <gtest/gtest.h>

#include "../support/scenarios.hpp"
#include "llmsim/hardware/compute_model.hpp"
#include "llmsim/model/transformer.hpp"
#include "llmsim/strategy/training_strategies.hpp"
#include "llmsim/workload/chunk_passes.hpp"
#include "llmsim/workload/moe_plan.hpp"

using namespace llmsim;

namespace {
const double kLaunch = 10e-6;  // software.kernel_launch_us = 10

struct Built {
  scenario::Scenario s;
  std::vector<workload::ComputeCost> costs;
  workload::ChunkPasses passes;
};
/// The passes of `file`'s whole model as one chunk (expert-parallel rank 0), with `overrides`.
Built build(const std::string& file, std::vector<std::string> overrides) {
  overrides.push_back("software.kernel_launch_us=10");
  Built b{test::shipped(file, overrides), {}, {}};
  const hardware::ComputeModel cm(b.s.hardware);
  const auto strategies = strategy::build_training_strategies(b.s);
  const auto plan = workload::plan_moe(b.s, *strategies.routing, *strategies.expert_placement);
  b.passes = workload::build_chunk_passes(b.s, cm, {b.s.model.layers}, b.costs,
                                          b.s.model.moe.enabled() ? &plan : nullptr)[0];
  return b;
}
double host_of(const Built& b, const std::string& name) {
  for (const auto& seg : b.passes.forward.segments)
    if (b.costs[seg.compute].name == name) return b.costs[seg.compute].host;
  ADD_FAILURE() << "no segment " << name;
  return 0;
}
int syncs(const workload::PassChain& chain) {
  int n = 0;
  for (const auto& piece : chain.fused) n += piece.host_sync;
  return n;
}
}  // namespace

TEST(HostCost, EachKernelCostsOneLaunchAndACapturedBlockOne) {
  // default.json's attention block, unfused bf16: input norm, QKV, scores, softmax, dropout, scores x V,
  // projection, dropout + residual = 8 kernels, 8 launches; the MLP block: norm, up, GeLU, down, dropout + residual.
  const auto eager = build("scenarios/default.json", {});
  EXPECT_NEAR(host_of(eager, "F attention"), 8 * kLaunch, 1e-15);
  EXPECT_NEAR(host_of(eager, "F mlp"), 5 * kLaunch, 1e-15);
  const auto graphed = build("scenarios/default.json", {"training.cuda_graph.attn=true"});
  EXPECT_NEAR(host_of(graphed, "F attention"), kLaunch, 1e-15);
  EXPECT_NEAR(host_of(graphed, "F mlp"), 5 * kLaunch, 1e-15);
  // A fused block's host time is the sum of its segments'.
  double sum = 0;
  for (const auto& seg : eager.passes.backward.segments) sum += eager.costs[seg.compute].host;
  ASSERT_EQ(eager.passes.backward.fused.size(), 1u);
  EXPECT_NEAR(eager.costs[eager.passes.backward.fused[0].compute].host, sum, 1e-15);
}

TEST(HostCost, AnFp8WeightCastCountsOncePerIteration) {
  // fp8-delayed on H100: a linear layer is input cast, weight cast, GEMM; the weight cast runs on the first of the
  // iteration's micro-batches only (Fp8::weight_share), so its launch counts 1/micro-batches.
  const auto b = build("scenarios/default.json", {"hardware=H100-SXM5-80GB", "training.fp8=fp8-delayed"});
  const double share = b.s.training.micro_batch * 1.0 /
                       (b.s.training.global_batch / (b.s.parallelism.dp > 0 ? b.s.parallelism.dp : 1));
  double n = 0;
  for (const auto& k : model::attention_forward(model::LayerShape::from(b.s))) n += k.launches;
  EXPECT_NEAR(host_of(b, "F attention"), n * kLaunch, 1e-15);
  EXPECT_NEAR(n, 8 + 2 + 2 * share, 1e-9);  // 8 kernels as above, QKV's and projection's input casts, weight casts
}

TEST(HostCost, ADroplessDispatcherSyncsOncePerMoeLayerForward) {
  // OLMoE: 16 MoE layers. The forward syncs before each dispatch; the backward reuses the token counts; full
  // recomputation replays the forward and syncs again; a capacity factor (drop and pad) needs no counts.
  const std::string olmoe = "scenarios/moe/olmoe-ep8-a100.json";
  const auto b = build(olmoe, {"training.recompute=none"});
  EXPECT_EQ(syncs(b.passes.forward), 16);
  EXPECT_EQ(syncs(b.passes.backward), 0);
  EXPECT_EQ(syncs(build(olmoe, {"training.recompute=full"}).passes.backward), 16);
  EXPECT_EQ(syncs(build(olmoe, {"model.moe.capacity_factor=1.25"}).passes.forward), 0);
}

TEST(HostCost, ASlowerHostCpuScalesEveryLaunch) {
  // hardware.host_cpu_slowdown 2.75 (Grace: TransformerEngine issue #2053, 37.08 vs 13.48 us per torch Linear
  // forward): the same 8 and 5 launches as above, each 2.75 x 10 us.
  const auto grace = build("scenarios/default.json", {"hardware.host_cpu_slowdown=2.75"});
  EXPECT_NEAR(host_of(grace, "F attention"), 8 * 27.5e-6, 1e-15);
  EXPECT_NEAR(host_of(grace, "F mlp"), 5 * 27.5e-6, 1e-15);
  // The shipped Grace presets carry it; the x86 ones leave it at 1.
  EXPECT_DOUBLE_EQ(test::shipped("scenarios/default.json", {"hardware=GB200-NVL72", "cluster.gpus_per_node=8"}).hardware.host_cpu_slowdown, 2.75);
  EXPECT_DOUBLE_EQ(test::shipped("scenarios/default.json", {"hardware=B200"}).hardware.host_cpu_slowdown, 1.0);
}
