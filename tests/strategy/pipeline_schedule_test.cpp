// Pipeline schedules: task orders, and the bubble fraction the engine measures with equal stages and no
// communication against the closed forms (p-1)/(m+p-1) for 1F1B and (p-1)/(v*m+p-1) for interleaved 1F1B
// (Narayanan et al. SC'21 Sec. 2.2).
#include <gtest/gtest.h>

#include <algorithm>

#include "../support/scenarios.hpp"
#include "llmsim/engine/engine.hpp"
#include "llmsim/strategy/pipeline_schedule.hpp"
#include "llmsim/util/error.hpp"
#include "llmsim/workload/pipeline_ops.hpp"

using namespace llmsim;
using strategy::PipelineTask;

namespace {
/// The schedule `name` with its default parameters (virtual_stages = v for interleaving).
std::unique_ptr<strategy::PipelineSchedule> schedule_named(const std::string& name, int v = 2) {
  nlohmann::json choice = {{"name", name}};
  if (name == "interleaved-1f1b") choice["virtual_stages"] = v;
  const auto s = test::shipped("scenarios/default.json",
                               {"strategies.pipeline_schedule=" + choice.dump(), "training.global_batch=256"});
  return strategy::make_pipeline_schedule(s);
}

/// Runs p stages with forward / whole-backward blocks of tf/tb per chunk (the backward split into tb - tw for B
/// and tw for W) and 0-byte transfers on a zero-latency cluster; returns the iteration time. Each pass is
/// `units` equal units; with ar > 0 every unit of F, B and B+W ends with a tp collective of ar seconds (W has
/// none), blocking when the pass runs alone, on the communication stream in a braided pair. Copying a
/// chunk's activations to or from host memory takes `copy` seconds.
double simulate(const strategy::PipelineSchedule& sch, int p, int m, double tf, double tb, double tw = 0, double ar = 0,
                int units = 2, double copy = 0) {
  const auto s = test::shipped("scenarios/default.json",
                               {"cluster.nodes=" + std::to_string(p), "cluster.nic_latency_us=0", "cluster.topology.switch_latency_us=0",
                                "hardware.nvlink_latency_us=0", "parallelism.tp=8", "parallelism.pp=1",
                                "training.global_batch=240"});
  const int v = sch.chunks_per_stage();
  workload::Workload w;
  auto cost = [&](const std::string& name, double seconds, workload::TimeCategory c = workload::TimeCategory::Gemm) {
    workload::ComputeCost cc{name, seconds, {}, 0};
    cc.by_category[static_cast<int>(c)] = seconds;
    w.costs.push_back(cc);
    return static_cast<int>(w.costs.size()) - 1;
  };
  const int coll = cost("tp all-reduce", ar, workload::TimeCategory::TpComm);
  auto chain = [&](const std::string& name, double pass_time, bool with_collective) {
    workload::PassChain c;
    const int unit = cost(name, pass_time / v / units);
    c.segments.assign(units, {unit, with_collective ? coll : -1, 0});
    c.fused = {{cost(name, pass_time / v + (with_collective ? units * ar : 0)), {}, {}}};
    return c;
  };
  const workload::ChunkPasses passes{chain("F", tf, true), chain("B", tb - tw, true), chain("W", tw, false),
                                     chain("B", tb, true)};
  const std::vector<workload::ChunkPasses> all(p * v, passes);
  const int copy_cost = cost("activation copy", copy, workload::TimeCategory::Offload);
  workload::PipelineWiring wiring{p, workload::chunk_owners(sch, p), &all, std::make_shared<workload::PipelineP2p>(0.0, false), [](int stage) { return stage; },
                                  std::vector<int>(p * v, copy_cost)};
  for (int stage = 0; stage < p; ++stage) {
    workload::Worker wk;
    wk.node = stage;
    wk.width = 8;
    wk.first_rank = 8 * stage;
    wk.stage = stage;
    workload::append_pipeline_ops(wk.ops, stage, sch.stage_order({p, stage, m}), sch, wiring);
    wk.ops.push_back(workload::end_iteration(0));
    w.workers.push_back(wk);
  }
  return engine::run_workload(w, s, std::vector<bool>(p, false)).iteration_ends()[0];
}

/// One stage running a given task order (with an optional offloaded chunk).
class FixedOrder final : public strategy::PipelineSchedule {
 public:
  explicit FixedOrder(std::vector<PipelineTask> order, int offloaded = -1) : order_(std::move(order)), offloaded_(offloaded) {}
  int chunks_per_stage() const override { return 1; }
  int offloaded_chunk() const override { return offloaded_; }
  std::vector<PipelineTask> stage_order(const strategy::StageContext&) const override { return order_; }

 private:
  std::vector<PipelineTask> order_;
  int offloaded_;
};
}  // namespace

TEST(PipelineSchedules, EveryTaskExactlyOnceAndBackwardAfterForward) {
  // Each (micro-batch, chunk) has one forward and either one whole backward or one B followed by one W, after
  // the forward; a braided task never opens an order.
  using P = PipelineTask::Pass;
  for (const char* name : {"gpipe", "1f1b", "interleaved-1f1b", "zb-h1", "zb-v", "stp"}) {
    const auto sch = schedule_named(name);
    for (int p : {2, 4})
      for (int stage = 0; stage < p; ++stage) {
        const int m = 12, v = sch->chunks_per_stage();
        const auto order = sch->stage_order({p, stage, m});
        ASSERT_FALSE(order.front().braided) << name;
        auto at = [&](P pass, int mb, int c) {
          return std::find(order.begin(), order.end(), PipelineTask{pass, mb, c}) - order.begin();
        };
        const auto end = static_cast<long>(order.size());
        size_t tasks = 0;
        for (int mb = 0; mb < m; ++mb)
          for (int c = 0; c < v; ++c) {
            const long f = at(P::Forward, mb, c), whole = at(P::Backward, mb, c), b = at(P::BackwardInput, mb, c),
                       w = at(P::BackwardWeight, mb, c);
            ASSERT_LT(f, end) << name;
            ASSERT_NE(whole < end, b < end) << name << " mb " << mb << " chunk " << c;
            if (whole < end) EXPECT_LT(f, whole) << name;
            if (b < end) {
              EXPECT_LT(f, b) << name;
              ASSERT_LT(w, end) << name;
              EXPECT_LT(b, w) << name;
            }
            tasks += whole < end ? 2 : 3;
          }
        EXPECT_EQ(order.size(), tasks) << name << " (a task appears twice)";
      }
  }
}

TEST(PipelineSchedules, InFlightActivations) {
  // 1F1B holds p - s micro-batches on stage s; GPipe all m; interleaved (p-s-1)*2 + (v-1)*p + 1 chunk sets.
  const auto one = schedule_named("1f1b"), gp = schedule_named("gpipe"), il = schedule_named("interleaved-1f1b", 2);
  EXPECT_EQ(strategy::max_in_flight(one->stage_order({4, 0, 8})), 4);
  EXPECT_EQ(strategy::max_in_flight(one->stage_order({4, 3, 8})), 1);
  EXPECT_EQ(strategy::max_in_flight(gp->stage_order({4, 1, 8})), 8);
  EXPECT_EQ(strategy::max_in_flight(il->stage_order({4, 0, 8})), 3 * 2 + 4 + 1);
}

TEST(PipelineBubble, OneFOneBMatchesClosedForm) {
  const int p = 4, m = 8;
  const double tf = 1.0, tb = 2.0;
  const double t = simulate(*schedule_named("1f1b"), p, m, tf, tb);
  EXPECT_NEAR(t, (m + p - 1) * (tf + tb), 1e-9);
  EXPECT_NEAR(1 - m * (tf + tb) / t, (p - 1.0) / (m + p - 1), 1e-9);
}

TEST(PipelineBubble, InterleavedMatchesClosedForm) {
  const int p = 4, m = 8, v = 2;
  const double tf = 1.0, tb = 2.0;
  const double t = simulate(*schedule_named("interleaved-1f1b", v), p, m, tf, tb);
  EXPECT_NEAR(1 - m * (tf + tb) / t, (p - 1.0) / (v * m + p - 1), 1e-9);
}

TEST(PipelineBubble, ZbH1MatchesClosedForm) {
  // Qi et al. 2024, Sec. 3.1: bubble (p-1)(T_F + T_B - T_W), T_B and T_W the two halves of the backward.
  const int p = 4, m = 8;
  const double tf = 1.0, tb = 2.0, tw = 1.0;
  const double t = simulate(*schedule_named("zb-h1"), p, m, tf, tb, tw);
  EXPECT_NEAR(t - m * (tf + tb), (p - 1) * (tf + (tb - tw) - tw), 1e-9);
}

TEST(PipelineBubble, ZbH1WithUnequalPasses) {
  const int p = 4, m = 12;
  const double tf = 1.0, tb = 2.2, tw = 0.9;  // B = 1.3
  const double t = simulate(*schedule_named("zb-h1"), p, m, tf, tb, tw);
  EXPECT_NEAR(t - m * (tf + tb), (p - 1) * (tf + (tb - tw) - tw), 1e-9);
}

TEST(PipelineSchedules, ZbH1KeepsThePeakActivationsOf1F1B) {
  // No stage holds more than p micro-batches, 1F1B's first-stage peak (Qi et al. 2024, Sec. 3.1).
  const auto zb = schedule_named("zb-h1");
  for (int stage = 0; stage < 4; ++stage) EXPECT_LE(strategy::max_in_flight(zb->stage_order({4, stage, 8})), 4);
  EXPECT_EQ(strategy::max_in_flight(zb->stage_order({4, 0, 8})), 4);
}

TEST(PipelineBubble, GpipeMatchesClosedForm) {
  const int p = 3, m = 5;
  const double t = simulate(*schedule_named("gpipe"), p, m, 1.0, 2.0);
  EXPECT_NEAR(t, (m + p - 1) * 3.0, 1e-9);
}

// With T_F = T_B = T_W per chunk no schedule beats (p-1)*T_F of idle: the last stage cannot start before the
// first p-1 chunks' forwards, and every stage has the same work. ZB-V and STP reach it; it is also STP's
// PP-bubble formula (p-1)(T_F + T_B - T_W) at T_AR = 0 (STP README table). p = 3, m = 3p-1 = 8; per stage
// F, B, W = 1 s, i.e. 0.5 s per chunk.
TEST(PipelineBubble, ZbVReachesTheStartUpBoundWithEqualPasses) {
  EXPECT_NEAR(simulate(*schedule_named("zb-v"), 3, 8, 1.0, 2.0, 1.0) - 8 * 3.0, 2 * 0.5, 1e-9);
}

TEST(PipelineBubble, StpReachesTheStartUpBoundWithEqualPasses) {
  EXPECT_NEAR(simulate(*schedule_named("stp"), 3, 8, 1.0, 2.0, 1.0) - 8 * 3.0, 2 * 0.5, 1e-9);
}

TEST(PipelineSchedules, PeakInFlightOfVShapedSchedules) {
  // Chunk activation sets on stage 0: ZB-V 2p (= 1F1B's p micro-batches of a whole stage, Qi et al. 2024
  // Sec. 6), STP 3p (STP README table: 3p M_a), interleaved 1F1B 3p-1 (README: about 3p-2).
  const int p = 4, m = 12;
  EXPECT_EQ(strategy::max_in_flight(schedule_named("zb-v")->stage_order({p, 0, m})), 2 * p);
  EXPECT_EQ(strategy::max_in_flight(schedule_named("stp")->stage_order({p, 0, m})), 3 * p);
  EXPECT_EQ(strategy::max_in_flight(schedule_named("interleaved-1f1b")->stage_order({p, 0, m})), 3 * p - 1);
  for (int stage = 1; stage < p; ++stage) {
    EXPECT_LE(strategy::max_in_flight(schedule_named("zb-v")->stage_order({p, stage, m})), 2 * p);
    EXPECT_LE(strategy::max_in_flight(schedule_named("stp")->stage_order({p, stage, m})), 3 * p);
  }
}

TEST(PipelineSchedules, VPlacementPutsFirstAndLastChunkOnStageZero) {
  const auto v = schedule_named("stp");
  EXPECT_EQ(v->model_chunk(4, 0, 0), 0);
  EXPECT_EQ(v->model_chunk(4, 0, 1), 7);
  EXPECT_EQ(v->model_chunk(4, 3, 0), 3);
  EXPECT_EQ(v->model_chunk(4, 3, 1), 4);
}

TEST(BraidedPair, EachCollectiveOverlapsTheOtherPassAndOnlyTheTailIsExposed) {
  // One stage, two forwards braided; each is two units of 1 s followed by a 0.4 s all-reduce. Alone: 2 x (2 +
  // 0.8) = 5.6 s. Braided: F0a 0-1 (AR 1-1.4), F1a 1-2 (AR 2-2.4), F0b 2-3 (AR 3-3.4), F1b 3-4 (AR 4-4.4):
  // 4.4 s, only the last all-reduce exposed.
  PipelineTask second{PipelineTask::Pass::Forward, 1, 0};
  second.braided = true;
  EXPECT_NEAR(simulate(FixedOrder({{PipelineTask::Pass::Forward, 0, 0}, second}), 1, 2, 2.0, 0.0, 0.0, 0.4), 4.4, 1e-9);
}

namespace {
/// Interleaved 1F1B on a MoE scenario (OLMoE, ep 8) with pp stages and Megatron's combined 1F1B (ep_overlap).
std::unique_ptr<strategy::PipelineSchedule> ep_overlap_schedule(int v, const std::vector<std::string>& extra = {}) {
  std::vector<std::string> overrides = {"strategies.pipeline_schedule={\"name\": \"interleaved-1f1b\", "
                                        "\"virtual_stages\": " + std::to_string(v) + ", \"ep_overlap\": true}"};
  overrides.insert(overrides.end(), extra.begin(), extra.end());
  return strategy::make_pipeline_schedule(test::shipped("scenarios/moe/olmoe-ep8-a100.json", overrides));
}
}  // namespace

TEST(EpOverlap, OneMoreWarmUpForwardThenEveryStepBraided) {
  // p = 2, v = 2, m = 4 on stage 0: Megatron's warm-up (p-s-1)*2 + (v-1)*p = 4 forwards, plus 1 with the overlap;
  // the remaining 8 - 5 = 3 forwards each braided with the backward after them. The peak of held activation sets
  // stays 5: plain, the first steady forward reaches it; with the overlap, the extra warm-up forward does, and a
  // braided pair frees layer by layer what it allocates.
  const auto plain = schedule_named("interleaved-1f1b", 2), overlap = ep_overlap_schedule(2);
  const auto order = overlap->stage_order({2, 0, 4});
  ASSERT_EQ(order.size(), 16u);
  for (int i = 0; i < 5; ++i) EXPECT_EQ(order[i].pass, PipelineTask::Pass::Forward) << i;
  int braided = 0;
  for (size_t i = 0; i < order.size(); ++i)
    if (order[i].braided) {
      ++braided;
      EXPECT_EQ(order[i].pass, PipelineTask::Pass::Backward);
      EXPECT_EQ(order[i - 1].pass, PipelineTask::Pass::Forward);
    }
  EXPECT_EQ(braided, 3);
  EXPECT_EQ(strategy::max_in_flight(plain->stage_order({2, 0, 4})), 5);
  EXPECT_EQ(strategy::max_in_flight(order), 5);
}

// One stage, v = 1, m = 4; F is 2 units of 0.5 s, B 2 units of 1 s, each unit followed by a 0.1 s collective
// (one simulation per test: SimGrid runs once per process).
TEST(EpOverlap, WithoutItEveryCollectiveBlocks) {
  // Alone: F 1.2 s, B 2.2 s, so 1F1B takes 4 x 3.4 = 13.6 s.
  const auto plain = strategy::make_pipeline_schedule(test::shipped(
      "scenarios/moe/olmoe-ep8-a100.json", {"strategies.pipeline_schedule={\"name\": \"interleaved-1f1b\", "
                                            "\"virtual_stages\": 1}"}));
  EXPECT_NEAR(simulate(*plain, 1, 4, 1.0, 2.0, 0.0, 0.1), 13.6, 1e-9);
}

TEST(EpOverlap, EachPassCommunicatesBesideTheOtherPassCompute) {
  // Combined 1F1B: F0 alone (1.2), then [F1+B0], [F2+B1], [F3+B2] each F1a 0-0.5, B0a 0.5-1.5, F1b 1.5-2.0, B0b
  // 2.0-3.0 and its last collective 3.0-3.1 = 3.1 s, then B3 alone (2.2): 12.7 s.
  EXPECT_NEAR(simulate(*ep_overlap_schedule(1), 1, 4, 1.0, 2.0, 0.0, 0.1), 12.7, 1e-9);
}

TEST(EpOverlap, MegatronsPreconditionsAreErrors) {
  const std::string path = "/strategies/pipeline_schedule/ep_overlap";
  EXPECT_EQ(test::error_of([] { ep_overlap_schedule(2, {"parallelism.ep=1"}); }).path(), path);
  EXPECT_EQ(test::error_of([] { ep_overlap_schedule(2, {"training.recompute=full"}); }).path(), path);
  EXPECT_EQ(test::error_of([] { ep_overlap_schedule(1, {"parallelism.pp=2"}); }).path(), path);
}

// Same passes with 8 units per pass and a 0.025 s all-reduce after every unit of F, B and B+W (p = 2, m = 16):
// interleaved 1F1B blocks on each one — m x 2 chunks x 2 passes x 8 units x 0.025 = 12.8 s, plus the all-reduces
// of one chunk's F and B (0.4 s) on the critical path of the extra stage — STP hides most behind the braided
// partner (exposed: the tasks that run alone in warm-up and cool-down, and the last all-reduce of each pair).
constexpr double kAllBlocking = 16 * 2 * 2 * 8 * 0.025;

TEST(PipelineBubble, InterleavedExposesEveryTensorParallelAllReduce) {
  const double t = simulate(*schedule_named("interleaved-1f1b"), 2, 16, 1.0, 2.0, 1.0, 0.025, 8);
  EXPECT_NEAR(t - 16 * 3.0 - 1.5, kAllBlocking + 0.4, 1e-9);
}

TEST(PipelineBubble, StpExposesLessThanHalfOfTheTensorParallelAllReduces) {
  const double t = simulate(*schedule_named("stp"), 2, 16, 1.0, 2.0, 1.0, 0.025, 8);
  EXPECT_LT(t - 16 * 3.0, 0.5 * kAllBlocking);
}

namespace {
/// The ScenarioError of loading default.json with `overrides` (the loader builds the schedule to check it).
ScenarioError schedule_error(const std::vector<std::string>& overrides) {
  return test::error_of([&] { test::shipped("scenarios/default.json", overrides); });
}
}  // namespace

TEST(PipelineScheduleErrors, StpNeedsEnoughMicroBatches) {
  // 16 GPUs, tp 2, pp 4 -> dp 2; 20 sequences -> m = 10 < 3*4-1 = 11.
  const auto e = schedule_error({"parallelism.pp=4", "training.global_batch=20",
                                 "strategies.pipeline_schedule={\"name\": \"stp\"}"});
  EXPECT_EQ(e.path(), "/training/global_batch");
  EXPECT_NE(std::string(e.what()).find("at least 11 micro-batches"), std::string::npos) << e.what();
}

TEST(PipelineScheduleErrors, ZbVNeedsTwoPMinusOneMicroBatches) {
  // m = 12 / dp 2 = 6 < 2*4-1 = 7.
  const auto e = schedule_error({"parallelism.pp=4", "training.global_batch=12",
                                 "strategies.pipeline_schedule={\"name\": \"zb-v\"}"});
  EXPECT_NE(std::string(e.what()).find("at least 7 micro-batches"), std::string::npos) << e.what();
}

TEST(PipelineScheduleErrors, InterleavingNeedsLayersDivisibleIntoChunks) {
  // gpt-1.7b has 24 layers: pp 2 x 5 virtual stages = 10 chunks do not divide them.
  const auto e = schedule_error({"strategies.pipeline_schedule.virtual_stages=5"});
  EXPECT_EQ(e.path(), "/model/layers");
  EXPECT_NE(std::string(e.what()).find("multiple of it"), std::string::npos) << e.what();
}

TEST(ActivationOffload, BackwardWaitsForTheCopyOutAndTheCopyBack) {
  // F (1 s) on the offloaded chunk, then its B (1 s); a copy takes 3 s each way. F 0-1, copy out 1-4, copy back
  // 4-7 (it cannot start before the copy out ends), B 7-8: 8 s, 6 s of it waiting for the host link.
  const FixedOrder forward_then_backward({{PipelineTask::Pass::Forward, 0, 0}, {PipelineTask::Pass::Backward, 0, 0}}, 0);
  EXPECT_NEAR(simulate(forward_then_backward, 1, 1, 1.0, 1.0, 0, 0, 2, 3.0), 8.0, 1e-9);
}

TEST(ActivationOffload, CopyBackIsPrefetchedDuringThePreviousTask) {
  // F mb0 0-1 (copy out 1-3), F mb1 1-2 (copy out 3-5), B mb1's copy back is queued while B... order: F0, F1,
  // B0, B1 on one stage with 2 s copies. Copy back of mb0 is prefetched during F1 but must wait for its copy
  // out: 3-5; B0 waits until 5, runs 5-6; copy back of mb1 prefetched during B0: after its copy out (5) and the
  // H2D stream (free at 5): 5-7; B1 7-8.
  using P = PipelineTask::Pass;
  const FixedOrder two_and_two({{P::Forward, 0, 0}, {P::Forward, 1, 0}, {P::Backward, 0, 0}, {P::Backward, 1, 0}}, 0);
  EXPECT_NEAR(simulate(two_and_two, 1, 2, 1.0, 1.0, 0, 0, 2, 2.0), 8.0, 1e-9);
}

TEST(ActivationOffload, OnlyTwoSetsOfTheOffloadedChunkStayOnTheDevice) {
  // STP with p = 4, m = 12: stage s runs s+1 forwards of its second chunk (model chunk 2p-1-s) before that
  // chunk's first backward (steps 2-4), and from then on braided [F_1 + B_1] pairs keep the count; offloading
  // the first chunk leaves those s+1 sets plus the two of the first chunk in transit — instead of 3p = 12.
  const auto stp = schedule_named("stp");
  EXPECT_EQ(strategy::max_in_flight(stp->stage_order({4, 0, 12})), 12);
  for (int stage = 0; stage < 4; ++stage)
    EXPECT_EQ(strategy::max_in_flight(stp->stage_order({4, stage, 12}), 0), stage + 1 + 2) << "stage " << stage;
}

TEST(PipelineSplit, EmbeddingAndLossCountAsOneLayerEach) {
  // Llama 3.1 405B, 126 layers, pp 8, 8 chunks per stage: 128 units / 64 chunks = 2, the first and last chunk 1.
  const std::string file = "scenarios/validation/megatron-bridge-25.11-blackwell/b200-llama3.1-405b-128gpus-fp8-cs.json";
  const auto s = test::shipped(file);
  const auto layers = strategy::chunk_layers(s, *strategy::make_pipeline_schedule(s));
  ASSERT_EQ(layers.size(), 64u);
  EXPECT_EQ(layers.front(), 1);
  EXPECT_EQ(layers.back(), 1);
  EXPECT_EQ(std::count(layers.begin(), layers.end(), 2), 62);
  // pp 8 x 16 chunks: one slot each, the embedding and the loss alone in the first and the last chunk (the
  // GB200 Llama 3.1 405B MXFP8 recipe, pp 16 x vp 8).
  const auto s128 = test::shipped(file, {"strategies.pipeline_schedule.virtual_stages=16"});
  const auto one_slot = strategy::chunk_layers(s128, *strategy::make_pipeline_schedule(s128));
  ASSERT_EQ(one_slot.size(), 128u);
  EXPECT_EQ(one_slot.front(), 0);
  EXPECT_EQ(one_slot.back(), 0);
  EXPECT_EQ(std::count(one_slot.begin(), one_slot.end(), 1), 126);
  // 126 + 2 does not split into pp 8 x 3 chunks; an explicit last stage contradicts the split.
  EXPECT_EQ(test::error_of([&] { test::shipped(file, {"strategies.pipeline_schedule.virtual_stages=3"}); }).path(),
            "/parallelism/pipeline_split");
  EXPECT_EQ(test::error_of([&] { test::shipped(file, {"parallelism.last_stage_layers=14"}); }).path(),
            "/parallelism/last_stage_layers");
}
