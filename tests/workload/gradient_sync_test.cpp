// The gradient-sync hook's steps for a dense stage, against the bucket arithmetic (Megatron DDP buckets) and
// ZeRO's collectives (Rajbhandari et al. SC'20, Sec. 5), and where the emitter puts them.
#include <gtest/gtest.h>

#include <cmath>
#include <variant>

#include "../support/scenarios.hpp"
#include "llmsim/hardware/compute_model.hpp"
#include "llmsim/strategy/training_strategies.hpp"
#include "llmsim/workload/training.hpp"

namespace llmsim {
namespace {

struct Built {
  scenario::Scenario s;
  workload::TrainingPlan plan;
};

// GPT 1.7B on 16 GPUs, tp 2, pp 2, dp 4, fp16 (2-byte gradients), one model chunk per stage.
Built build(std::vector<std::string> sets) {
  sets.push_back("strategies.pipeline_schedule=1f1b");
  Built b{test::shipped("scenarios/default.json", sets), {}};
  const hardware::ComputeModel cm(b.s.hardware);
  b.plan = workload::build_training(b.s, cm, strategy::build_training_strategies(b.s));
  return b;
}

double bytes_of(const workload::Workload& w, const std::vector<workload::SyncStep>& steps) {
  double sum = 0;
  for (const auto& st : steps) sum += w.collectives[st.collective].bytes;
  return sum;
}

int starts_of(const workload::Worker& wk, int spec) {
  int n = 0;
  for (const auto& op : wk.ops)
    if (const auto* s = std::get_if<workload::CollectiveStartOp>(&op)) n += s->collective == spec;
  return n;
}

TEST(GradientSync, DataParallelBucketsHoldEveryGradientByteOnce) {
  const auto b = build({});
  const auto& w = b.plan.workload;
  ASSERT_EQ(b.plan.stages.size(), 2u);
  for (const auto& sp : b.plan.stages) {
    const auto& steps = sp.sync.at_chunk_end.at(0).at(0);
    const double bytes = sp.params * 2;  // fp16 gradients
    EXPECT_EQ(steps.size(), static_cast<size_t>(std::ceil(bytes / b.s.training.grad_bucket_bytes)));
    EXPECT_NEAR(bytes_of(w, steps), bytes, bytes * 1e-12);
    for (const auto& st : steps) {
      EXPECT_EQ(w.collectives[st.collective].kind, collectives::Kind::AllReduce);
      EXPECT_EQ(w.groups[w.collectives[st.collective].group].size(), 4u);  // the dp replicas
      EXPECT_EQ(st.compute, -1);
    }
    EXPECT_TRUE(sp.sync.after_optimizer.empty());
    EXPECT_TRUE(sp.sync.layer_gather.empty());
    // Each bucket is started once per iteration by every replica of the stage.
    for (int r = 0; r < 4; ++r)
      EXPECT_EQ(starts_of(w.workers[b.plan.layout.worker_of(sp.stage, r)], steps.front().collective),
                b.s.training.iterations);
    EXPECT_DOUBLE_EQ(sp.memory.optimizer, sp.params * 12);
  }
}

TEST(GradientSync, ZeroOneReduceScattersAndGathersTheUpdatedParameters) {
  const auto b = build({"training.zero_stage=1"});
  const auto& w = b.plan.workload;
  for (const auto& sp : b.plan.stages) {
    for (const auto& st : sp.sync.at_chunk_end.at(0).at(0))
      EXPECT_EQ(w.collectives[st.collective].kind, collectives::Kind::ReduceScatter);
    ASSERT_EQ(sp.sync.after_optimizer.size(), 1u);
    const auto& gather = w.collectives[sp.sync.after_optimizer[0].collective];
    EXPECT_EQ(gather.kind, collectives::Kind::AllGather);
    EXPECT_DOUBLE_EQ(gather.bytes, sp.params * 2);  // fp16 weights
    EXPECT_DOUBLE_EQ(sp.memory.optimizer, sp.params * 12 / 4);
    EXPECT_DOUBLE_EQ(sp.memory.weights, sp.params * 2);
  }
}

TEST(GradientSync, ZeroThreeGathersEachLayerOneAheadAndReduceScattersAfterItsBackward) {
  // FSDP's schedule (Zhao et al. VLDB'23, Sec. 3.3-3.4): 12 layers per stage, each all-gathered before each
  // forward and backward that uses it, the next layer's gather started when this one is waited for.
  const auto b = build({"training.zero_stage=3"});
  const auto& w = b.plan.workload;
  const int m = b.plan.micro_batches;
  for (const auto& sp : b.plan.stages) {
    EXPECT_TRUE(sp.sync.after_optimizer.empty());
    ASSERT_EQ(sp.sync.layer_gather.size(), 12u);
    double gathered = 0, largest = 0, second = 0;
    for (const auto& [layer, spec] : sp.sync.layer_gather) {
      const double bytes = w.collectives[spec].bytes;
      gathered += bytes;
      if (bytes > largest) second = largest, largest = bytes;
      else if (bytes > second) second = bytes;
      EXPECT_EQ(w.collectives[spec].kind, collectives::Kind::AllGather);
      // 1F1B: one forward and one backward per micro-batch need the layer.
      EXPECT_EQ(starts_of(w.workers[b.plan.layout.worker_of(sp.stage, 0)], spec), 2 * m * b.s.training.iterations);
    }
    EXPECT_NEAR(gathered, sp.params * 2, 1e-6 * gathered);  // fp16: every parameter of the stage once
    EXPECT_DOUBLE_EQ(sp.memory.weights, sp.params * 2 / 4 + largest + second);
    EXPECT_EQ(sp.sync.at_layer_end.at(0).size(), 12u + (sp.stage == 1));  // and the output layer's, last stage
  }
  // Prefetch: in the first forward of stage 0 layer 1's gather starts before layer 0 computes, and is waited
  // for after it.
  const auto& ops = w.workers[b.plan.layout.worker_of(0, 0)].ops;
  const int g0 = b.plan.stages[0].sync.layer_gather.at(0), g1 = b.plan.stages[0].sync.layer_gather.at(1);
  auto first = [&](auto match) {
    for (size_t i = 0; i < ops.size(); ++i)
      if (match(ops[i])) return i;
    return ops.size();
  };
  const size_t start1 = first([&](const workload::Op& o) {
    const auto* x = std::get_if<workload::CollectiveStartOp>(&o);
    return x && x->collective == g1;
  });
  const size_t wait0 = first([&](const workload::Op& o) {
    const auto* x = std::get_if<workload::CollectiveWaitOp>(&o);
    return x && x->collective == g0;
  });
  const size_t wait1 = first([&](const workload::Op& o) {
    const auto* x = std::get_if<workload::CollectiveWaitOp>(&o);
    return x && x->collective == g1;
  });
  EXPECT_LT(wait0, start1);
  ASSERT_LT(wait1, ops.size());
  EXPECT_TRUE(std::holds_alternative<workload::ComputeOp>(ops[start1 + 1]));  // layer 0 beside the gather
  EXPECT_GT(wait1, start1 + 1);
}

TEST(GradientSync, WithoutOverlapTheBucketsStartAfterTheLastBackward) {
  const auto b = build({"training.overlap_grad_reduce=false"});
  const auto& sp = b.plan.stages[0];
  EXPECT_FALSE(sp.sync.overlap);
  const auto& ops = b.plan.workload.workers[b.plan.layout.worker_of(0, 0)].ops;
  const int first_bucket = sp.sync.at_chunk_end[0][0].front().collective;
  size_t last_compute = 0, first_start = ops.size();
  for (size_t i = 0; i < ops.size(); ++i) {
    if (std::holds_alternative<workload::IterationEndOp>(ops[i])) break;
    const auto* c = std::get_if<workload::ComputeOp>(&ops[i]);
    if (c && c->step.pass != workload::Pass::None) last_compute = i;
    const auto* st = std::get_if<workload::CollectiveStartOp>(&ops[i]);
    if (st && st->collective == first_bucket) first_start = std::min(first_start, i);
  }
  EXPECT_GT(first_start, last_compute);
}

}  // namespace
}  // namespace llmsim
