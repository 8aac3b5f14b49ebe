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
    EXPECT_TRUE(sp.sync.before_block.at(0).empty());
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

TEST(GradientSync, ZeroThreeGathersEachChunkBeforeEveryBlock) {
  const auto b = build({"training.zero_stage=3"});
  const auto& w = b.plan.workload;
  const int m = b.plan.micro_batches;
  for (const auto& sp : b.plan.stages) {
    EXPECT_TRUE(sp.sync.after_optimizer.empty());
    ASSERT_EQ(sp.sync.before_block.at(0).size(), 1u);
    const int spec = sp.sync.before_block[0][0].collective;
    EXPECT_DOUBLE_EQ(w.collectives[spec].bytes, sp.params * 2);
    EXPECT_DOUBLE_EQ(sp.memory.weights, sp.params * 2 / 4);
    // 1F1B: a forward and a backward block per micro-batch, each after its own gather.
    EXPECT_EQ(starts_of(w.workers[b.plan.layout.worker_of(sp.stage, 0)], spec), 2 * m * b.s.training.iterations);
  }
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
