// Unit chains of a chunk's passes: all-reduce counts per tp variant, fused blocks equal to their parts, and the
// exposed tp communication of the overlap variants against their formulas.
#include <gtest/gtest.h>

#include <algorithm>

#include "../support/scenarios.hpp"
#include "llmsim/collectives/ring.hpp"
#include "llmsim/hardware/compute_model.hpp"
#include "llmsim/hardware/concurrent_kernels.hpp"
#include "llmsim/model/transformer.hpp"
#include "llmsim/workload/chunk_passes.hpp"

using namespace llmsim;

namespace {
/// default.json (gpt-1.7b, 24 layers, tp 2) without recomputation, split into two chunks of 12 layers, with
/// `overrides`.
struct Built {
  scenario::Scenario s;
  std::vector<workload::ComputeCost> costs;
  std::vector<workload::ChunkPasses> chunks;
};
Built build(std::vector<std::string> overrides) {
  overrides.insert(overrides.begin(), "training.recompute=none");
  Built b{test::shipped("scenarios/default.json", overrides), {}, {}};
  const hardware::ComputeModel cm(b.s.hardware);
  b.chunks = workload::build_chunk_passes(b.s, cm, {12, 12}, b.costs);
  return b;
}
int all_reduces(const workload::PassChain& c) {
  int n = 0;
  for (const auto& seg : c.segments) n += seg.collective >= 0;
  return n;
}
/// The chain run alone (a dense chain is one block).
double alone(const Built& b, const workload::PassChain& c) {
  EXPECT_EQ(c.fused.size(), 1u);
  return b.costs[c.fused[0].compute].duration;
}
/// Duration of the first compute segment of chain `c` named `name`.
double segment_named(const Built& b, const workload::PassChain& c, const std::string& name) {
  for (const auto& seg : c.segments)
    if (b.costs[seg.compute].name == name) return b.costs[seg.compute].duration;
  ADD_FAILURE() << "no segment " << name;
  return 0;
}
double ring_all_reduce(const scenario::Scenario& s) {
  const hardware::ComputeModel cm(s.hardware);
  return collectives::ring_time(collectives::Kind::AllReduce, s.parallelism.tp,
                                model::tp_activation_bytes(model::LayerShape::from(s)), cm.nvlink_bandwidth(),
                                cm.nvlink_latency());
}
}  // namespace

TEST(ChunkPasses, MegatronHasTwoAllReducesPerLayerAndPass) {
  const auto b = build({});
  // First chunk: + the embedding's all-reduce (forward); last chunk: + the head's input-gradient all-reduce.
  EXPECT_EQ(all_reduces(b.chunks[0].forward), 2 * 12 + 1);
  EXPECT_EQ(all_reduces(b.chunks[1].forward), 2 * 12);
  EXPECT_EQ(all_reduces(b.chunks[0].input), 2 * 12);
  EXPECT_EQ(all_reduces(b.chunks[1].input), 2 * 12 + 1);
  EXPECT_EQ(all_reduces(b.chunks[1].backward), 2 * 12 + 1);
  EXPECT_EQ(all_reduces(b.chunks[1].weight), 0);
}

TEST(ChunkPasses, FalRemovesOneAllReducePerBlockAfterTheFirst) {
  const auto b = build({"parallelism.tp_variant=fal"});
  EXPECT_EQ(all_reduces(b.chunks[0].forward), 12 + 1 + 1);  // the model's first block keeps two, + embedding
  EXPECT_EQ(all_reduces(b.chunks[1].forward), 12);
  EXPECT_EQ(all_reduces(b.chunks[1].input), 12 + 1);
  const auto plus = build({"parallelism.tp_variant=fal+"});
  EXPECT_EQ(all_reduces(plus.chunks[1].forward), 2 * 12);  // fal+ keeps both
}

TEST(ChunkPasses, FalRunsTheMlpBesideTheAttention) {
  // After the model's first layer a FAL block's forward is its attention and its MLP on two streams
  // (hardware/concurrent_kernels.hpp, tested by hand there): shorter than the two one after the other.
  const auto b = build({"parallelism.tp_variant=fal"});
  const hardware::ComputeModel cm(b.s.hardware);
  const auto x = model::LayerShape::from(b.s);
  const auto attention = model::attention_forward(x), mlp = model::mlp_forward(x);
  const double together = hardware::concurrent_time(cm, attention, mlp);
  const auto by = cm.times_by_category(model::concat(attention, mlp));
  EXPECT_NEAR(segment_named(b, b.chunks[1].forward, "F layer"), together, 1e-15);
  EXPECT_LT(together, 0.95 * (by[0] + by[1] + by[2]));
  const auto megatron = build({});
  const auto a = cm.times_by_category(attention);
  EXPECT_NEAR(segment_named(megatron, megatron.chunks[1].forward, "F attention"), a[0] + a[1] + a[2], 1e-15);
}

TEST(ChunkPasses, FullRecomputationReplaysTheForwardAllReducesInTheBackward) {
  const auto b = build({"training.recompute=full"});
  EXPECT_EQ(all_reduces(b.chunks[0].input), 4 * 12);
}

TEST(ChunkPasses, FusedBlockIsTheSumOfItsSegmentsWhenNothingOverlaps) {
  const auto b = build({});
  double sum = 0, tp = 0;
  for (const auto& seg : b.chunks[1].backward.segments) {
    sum += b.costs[seg.compute].duration;
    if (seg.collective >= 0) tp += b.costs[seg.collective].duration;
  }
  EXPECT_NEAR(tp, 25 * ring_all_reduce(b.s), 1e-12);
  EXPECT_NEAR(alone(b, b.chunks[1].backward), sum + tp, 1e-12);
  EXPECT_NEAR(alone(b, b.chunks[1].backward),
              alone(b, b.chunks[1].input) + alone(b, b.chunks[1].weight), 1e-12);
}

TEST(ChunkPasses, WgradOverlapHidesTheInputGradientAllReduceBehindTheColumnParallelWgrad) {
  // Each layer hides min(AR, t(QKV wgrad)) + min(AR, t(FFN-up wgrad)) of its two backward all-reduces; the
  // head hides min(AR, t(logits wgrad)). A split B hides nothing.
  const auto none = build({}), wgrad = build({"parallelism.tp_comm_overlap=wgrad"});
  const hardware::ComputeModel cm(none.s.hardware);
  const auto x = model::LayerShape::from(none.s);
  auto wgrad_of = [&](const std::vector<model::Kernel>& forward, const std::string& name) {
    for (const auto& k : model::backward_weight(forward))
      if (k.name == name + "_wgrad") return cm.kernel_time(k);
    ADD_FAILURE() << name;
    return 0.0;
  };
  const double ar = ring_all_reduce(none.s);
  const double per_layer = std::min(ar, wgrad_of(model::attention_forward(x), "qkv")) +
                           std::min(ar, wgrad_of(model::mlp_forward(x), "ffn_up"));
  const double head = std::min(ar, wgrad_of(model::head_forward(x), "logits"));
  EXPECT_NEAR(alone(none, none.chunks[1].backward) - alone(wgrad, wgrad.chunks[1].backward),
              12 * per_layer + head, 1e-12);
  EXPECT_DOUBLE_EQ(alone(none, none.chunks[1].input), alone(wgrad, wgrad.chunks[1].input));
}

TEST(ChunkPasses, PipelinedOverlapExposesOnePieceWhenTheGemmIsLonger) {
  // Wang et al. ASPLOS'23: with the collective C cut into n = tp pieces under a longer GEMM G, only C/n shows.
  const auto b = build({"parallelism.sequence_parallel=true", "parallelism.tp_comm_overlap=pipelined",
                        "training.seq_len=2048", "training.micro_batch=4"});
  const hardware::ComputeModel cm(b.s.hardware);
  const double bytes = model::tp_activation_bytes(model::LayerShape::from(b.s));
  const double c = collectives::ring_time(collectives::Kind::AllGather, 2, bytes, cm.nvlink_bandwidth(), cm.nvlink_latency()) +
                   collectives::ring_time(collectives::Kind::ReduceScatter, 2, bytes, cm.nvlink_bandwidth(), cm.nvlink_latency());
  const auto& mlp = b.chunks[1].forward.segments[1];  // the first layer's MLP unit
  const double g = b.costs[mlp.compute].by_category[static_cast<int>(workload::TimeCategory::Gemm)];
  ASSERT_GT(g, c);
  EXPECT_NEAR(b.costs[mlp.collective].duration, c / 2, 1e-12);
}

TEST(ChunkPasses, AnMtpLayerRunsBetweenItsInputAndTheSharedHeadWhoseGradientsAreFinalAfterItsBackward) {
  // One MTP module (the 25th layer, in the last chunk): forward ... layer 24, [MTP input, layer, head], head;
  // the head's gradients (layer number 25 = transformer_layers) are final after the MTP head's backward, the
  // last of the two heads'.
  Built b{test::shipped("scenarios/default.json", {"training.recompute=none", "model.mtp_layers=1",
                                                   "training.zero_stage=3"}),
          {}, {}};
  const hardware::ComputeModel cm(b.s.hardware);
  b.chunks = workload::build_chunk_passes(b.s, cm, {12, 13}, b.costs);
  const auto& last = b.chunks.back();
  std::vector<std::string> forward;
  for (const auto& seg : last.forward.segments) forward.push_back(b.costs[seg.compute].name);
  const auto mtp_in = std::find(forward.begin(), forward.end(), "F mtp input");
  ASSERT_NE(mtp_in, forward.end());
  EXPECT_EQ(std::count(forward.begin(), forward.end(), "F head"), 2);
  EXPECT_EQ(forward.back(), "F head");
  int heads = 0, marked_at = -1;
  for (const auto& seg : last.backward.segments) {
    if (b.costs[seg.compute].name == "B head") ++heads;
    if (seg.gradients_of_layer == 25) marked_at = heads;
  }
  EXPECT_EQ(heads, 2);
  EXPECT_EQ(marked_at, 2);  // on the second head's backward, not the first
}
