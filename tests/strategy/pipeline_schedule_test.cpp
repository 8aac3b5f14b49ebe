// Pipeline schedules: task orders, and the bubble fraction the engine measures with equal stages and no
// communication against the closed forms (p-1)/(m+p-1) for 1F1B and (p-1)/(v*m+p-1) for interleaved 1F1B
// (Narayanan et al. SC'21 Sec. 2.2).
#include <gtest/gtest.h>

#include <algorithm>

#include "../support/scenarios.hpp"
#include "llmsim/engine/engine.hpp"
#include "llmsim/strategy/pipeline_schedule.hpp"
#include "llmsim/workload/pipeline_ops.hpp"

using namespace llmsim;
using strategy::PipelineTask;

namespace {
std::unique_ptr<strategy::PipelineSchedule> schedule_named(const std::string& name, int v = 2) {
  const auto s = test::shipped("scenarios/default.json", {"strategies.pipeline_schedule={\"name\": \"" + name + "\"}",
                                                          "training.global_batch=256"});
  const auto* entry = strategy::PipelineScheduleRegistry::instance().find(name);
  nlohmann::json params = nlohmann::json::object();
  if (name == "interleaved-1f1b") params["virtual_stages"] = v;
  return entry->factory(params, s);
}

/// Runs p stages with forward / whole-backward blocks of tf/tb per chunk (the backward split into tb - tw for B
/// and tw for W) and 0-byte transfers on a zero-latency cluster; returns the iteration time. Each pass is two
/// units; with ar > 0 every unit of F, B and B+W ends with a tp collective of ar seconds (W has none), blocking
/// when the pass runs alone, on the communication stream in a braided pair.
double simulate(const strategy::PipelineSchedule& sch, int p, int m, double tf, double tb, double tw = 0, double ar = 0) {
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
    const int unit = cost(name, pass_time / v / 2);
    c.segments = {{unit, with_collective ? coll : -1, 0}, {unit, with_collective ? coll : -1, 0}};
    c.fused = cost(name, pass_time / v + (with_collective ? 2 * ar : 0));
    return c;
  };
  const workload::ChunkPasses passes{chain("F", tf, true), chain("B", tb - tw, true), chain("W", tw, false),
                                     chain("B", tb, true)};
  const std::vector<workload::ChunkPasses> all(p * v, passes);
  workload::PipelineWiring wiring{p, workload::chunk_owners(sch, p), &all, 0.0, [](int stage) { return stage; }};
  for (int stage = 0; stage < p; ++stage) {
    workload::Worker wk;
    wk.node = stage;
    wk.width = 8;
    wk.first_rank = 8 * stage;
    wk.stage = stage;
    workload::append_pipeline_ops(wk.ops, stage, sch.stage_order({p, stage, m}), sch, wiring);
    wk.ops.push_back({workload::Op::Kind::IterationEnd, workload::Pass::None, -1, -1, 0, 0});
    w.workers.push_back(wk);
  }
  return engine::run_workload(w, s, std::vector<bool>(p, false)).iteration_ends()[0];
}
}  // namespace

TEST(PipelineSchedules, EveryTaskExactlyOnceAndBackwardAfterForward) {
  for (const char* name : {"gpipe", "1f1b", "interleaved-1f1b", "zb-h1"}) {
    const auto sch = schedule_named(name);
    const int p = 4, m = 8, v = sch->chunks_per_stage();
    const size_t passes = std::string(name) == "zb-h1" ? 3 : 2;  // F, B, W
    for (int stage = 0; stage < p; ++stage) {
      const auto order = sch->stage_order({p, stage, m});
      ASSERT_EQ(order.size(), passes * m * v) << name;
      for (const auto& t : order) {
        EXPECT_EQ(std::count(order.begin(), order.end(), t), 1) << name;
        if (t.pass == PipelineTask::Pass::Backward) {
          const PipelineTask f{PipelineTask::Pass::Forward, t.micro_batch, t.chunk};
          EXPECT_LT(std::find(order.begin(), order.end(), f) - order.begin(),
                    std::find(order.begin(), order.end(), t) - order.begin());
        }
      }
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
