// How FlowMoE, ScheMoE and the gradient chunks are built (strategies.moe_pipeline): the pieces of a pass, the
// per-layer gradient chunks and the split all-to-all, checked against the rules in strategy/moe_pipeline.hpp.
#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <set>

#include "../support/scenarios.hpp"
#include "llmsim/model/moe.hpp"
#include "llmsim/model/transformer.hpp"
#include "llmsim/strategy/pipeline_schedule.hpp"
#include "llmsim/strategy/training_strategies.hpp"
#include "llmsim/workload/chunk_passes.hpp"
#include "llmsim/workload/training.hpp"

using namespace llmsim;

namespace {
const char* kScenario = "scenarios/moe/flowmoe/gpt2-tiny-moe.json";
const double kChunk = 1024.0 * 1024;  // S_p = 1 MiB
const std::string kFlowMoe = "strategies.moe_pipeline={\"name\": \"flowmoe\", \"allreduce_chunk_bytes\": 1048576}";

workload::TrainingPlan plan_of(const scenario::Scenario& s) {
  const hardware::ComputeModel cm(s.hardware);
  return workload::build_training(s, cm, strategy::build_training_strategies(s));
}
/// The passes of the whole model as one chunk, as expert-parallel rank 0 sees them (costs appended to `costs`).
workload::ChunkPasses passes_of(const scenario::Scenario& s, std::vector<workload::ComputeCost>& costs) {
  const hardware::ComputeModel cm(s.hardware);
  const auto strategies = strategy::build_training_strategies(s);
  const auto plan = workload::plan_moe(s, *strategies.routing, *strategies.expert_placement);
  return workload::build_chunk_passes(s, cm, {s.model.layers}, costs, &plan, 0, strategy::make_moe_pipeline(s)->layout())[0];
}
}  // namespace

TEST(FlowMoePasses, AttentionChunksFeedDispatchesAndABlockJoinsItsChunks) {
  // Forward with R = 2: the embedding; layer 0's attention+gating per chunk, each queuing its dispatch; the
  // experts per chunk, each waiting for its own dispatch and queuing its combine; the block ends when both
  // combines are back (FlowMoE concatenates the chunks after each block), then layer 1's chunks.
  const auto s = test::shipped(kScenario, {kFlowMoe});
  std::vector<workload::ComputeCost> costs;
  const auto passes = passes_of(s, costs);
  const auto& f = passes.forward.fused;
  using workload::Exchange;
  auto key = [](int layer, Exchange e) { return workload::moe_exchange_key(layer, e); };
  ASSERT_GE(f.size(), 8u);
  for (int c : {1, 2}) {
    EXPECT_TRUE(f[c].waits.empty());
    EXPECT_EQ(f[c].starts, (std::vector<int>{key(0, Exchange::Dispatch)}));
    EXPECT_EQ(f[c + 2].waits, (std::vector<int>{key(0, Exchange::Dispatch)}));
    EXPECT_EQ(f[c + 2].starts, (std::vector<int>{key(0, Exchange::Combine)}));
    EXPECT_TRUE(f[c + 5].waits.empty());
    EXPECT_EQ(f[c + 5].starts, (std::vector<int>{key(1, Exchange::Dispatch)}));
  }
  EXPECT_EQ(f[5].waits, (std::vector<int>{key(0, Exchange::Combine), key(0, Exchange::Combine)}));
  // A chunk's attention and gating are half of the micro-batch's.
  const auto x = model::LayerShape::from(s);
  const double whole = model::total_flops(model::attention_forward(x)) + model::total_flops(model::moe_pre_forward(x, s.model.moe));
  EXPECT_NEAR(costs[f[1].compute].flops, whole / 2, 1e-9 * whole);
}

TEST(FlowMoePasses, EveryLayerAndTheHeadEndTheBackwardBlockWhereTheirGradientsAreFinal) {
  const auto s = test::shipped(kScenario, {kFlowMoe});
  std::vector<workload::ComputeCost> costs;
  std::vector<int> order;
  for (const auto& p : passes_of(s, costs).backward.fused)
    if (p.gradients_of_layer >= 0) order.push_back(p.gradients_of_layer);
  std::vector<int> expected = {s.model.layers};  // the head first, then the layers from the last
  for (int l = s.model.layers - 1; l >= 0; --l) expected.push_back(l);
  EXPECT_EQ(order, expected);
}

TEST(FlowMoeGradients, EachLayerIsAllReducedInChunksOfSpThatYieldToAllToAlls) {
  // gpt2-tiny-moe, dp 16 = ep 16: the experts are not replicated, so only dense gradients are all-reduced. Each
  // layer's dense parameters (attention, norms, router) in FP32 are ceil(bytes / S_p) equal chunks.
  const auto s = test::shipped(kScenario, {kFlowMoe});
  const auto plan = plan_of(s);
  const double layer_bytes = model::moe_layer_params(s.model, 0) * 4;
  const int per_layer = static_cast<int>(std::ceil(layer_bytes / kChunk));
  int chunks = 0;
  std::map<double, int> sizes;
  for (const auto& c : plan.workload.collectives)
    if (c.name == "dp grad chunk") {
      EXPECT_TRUE(c.yields_to_all_to_all);
      ++chunks, ++sizes[c.bytes];
    }
  // 12 layers of per_layer chunks + the final norm (tied embeddings: the output matrix is the embedding's).
  EXPECT_EQ(chunks, s.model.layers * per_layer + 1);
  EXPECT_EQ(sizes[layer_bytes / per_layer], s.model.layers * per_layer);
  EXPECT_EQ(sizes[2.0 * s.model.hidden * 4], 1);
}

TEST(ScheMoeExchanges, AnAllToAllSplitsIntoItsIntraNodeAndInterNodePairs) {
  const auto tutel = plan_of(test::shipped(kScenario, {"strategies.moe_pipeline=tutel"}));
  const auto schemoe = plan_of(test::shipped(kScenario, {"strategies.moe_pipeline=schemoe"}));
  auto first = [](const workload::TrainingPlan& p, const std::string& name) -> const workload::CollectiveSpec& {
    for (const auto& c : p.workload.collectives)
      if (c.name == name) return c;
    throw std::runtime_error("no " + name);
  };
  // Both carry the same intra- and inter-node pairs; NCCL's all-to-all (tutel) queues the two parts on one stream,
  // one after the other, ScheMoE's Pipe-A2A puts them on two streams at once.
  const auto& intra = first(schemoe, "ep dispatch (intra-node)");
  const auto& inter = first(schemoe, "ep dispatch (inter-node)");
  const auto& nccl_intra = first(tutel, "ep dispatch (intra-node)");
  const auto& nccl_inter = first(tutel, "ep dispatch (inter-node)");
  EXPECT_NE(intra.group, inter.group);
  EXPECT_EQ(nccl_intra.group, nccl_inter.group);
  const int n = 16;
  for (int a = 0; a < n; ++a)
    for (int b = 0; b < n; ++b) {
      const size_t i = static_cast<size_t>(a) * n + b;
      const bool same_node = a / 8 == b / 8;
      EXPECT_EQ(intra.matrix[i], nccl_intra.matrix[i]);
      EXPECT_EQ(inter.matrix[i], nccl_inter.matrix[i]);
      EXPECT_EQ(same_node ? inter.matrix[i] : intra.matrix[i], 0.0);
      if (a != b) EXPECT_GT(same_node ? intra.matrix[i] : inter.matrix[i], 0.0);
    }
}

TEST(FlowMoeErrors, NeedsTpOneAnUnbraidedScheduleAndSpInRange) {
  EXPECT_EQ(test::error_of([] { test::shipped(kScenario, {kFlowMoe, "parallelism.tp=2", "cluster.nodes=4"}); }).path(),
            "/parallelism/tp");
  EXPECT_EQ(test::error_of([] {
              test::shipped(kScenario, {kFlowMoe, "strategies.pipeline_schedule=stp", "parallelism.pp=2",
                                        "parallelism.ep=8", "training.global_batch=320"});
            }).path(),
            "/strategies/moe_pipeline/name");
  // Megatron's combined 1F1B braids too: the error names what braids it.
  EXPECT_EQ(test::error_of([] {
              test::shipped(kScenario, {kFlowMoe, "training.micro_batch=4", "strategies.pipeline_schedule={\"name\": \"interleaved-1f1b\", "
                                                  "\"virtual_stages\": 1, \"ep_overlap\": true}"});
            }).path(),
            "/strategies/pipeline_schedule/ep_overlap");
  EXPECT_EQ(test::error_of([] {
              test::shipped(kScenario, {"strategies.moe_pipeline={\"name\": \"flowmoe\", \"allreduce_chunk_bytes\": 1000}"});
            }).path(),
            "/strategies/moe_pipeline/allreduce_chunk_bytes");
  EXPECT_EQ(test::error_of([] {
              test::shipped(kScenario, {"training.micro_batch=1", "training.seq_len=8", "training.global_batch=16",
                                        "strategies.moe_pipeline={\"name\": \"tutel\", \"chunks\": 9}"});
            }).path(),
            "/strategies/moe_pipeline/chunks");
}
