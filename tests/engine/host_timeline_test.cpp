// The host timeline: a compute block ends no earlier than the host has issued its kernels; the host runs ahead
// of the GPU until a HostSyncOp makes it wait for the compute stream.
#include <gtest/gtest.h>

#include "../support/scenarios.hpp"
#include "llmsim/engine/engine.hpp"

using namespace llmsim;

namespace {
using workload::TimeCategory;

workload::ComputeCost block(double gpu, double host) {
  workload::ComputeCost c{"F", gpu, {}, 0};
  c.by_category[static_cast<int>(TimeCategory::Gemm)] = gpu;
  c.host = host;
  return c;
}

/// One worker runs `ops` over costs 0: GPU 1 s / host 0.4 s, 1: GPU 0.2 s / host 0.5 s. Returns the iteration
/// time and the time filed under Host.
std::pair<double, double> run(std::vector<workload::Op> ops) {
  const auto s = test::shipped("scenarios/default.json", {"cluster.nodes=1", "parallelism.pp=1", "parallelism.tp=8"});
  workload::Workload w;
  w.costs = {block(1.0, 0.4), block(0.2, 0.5)};
  workload::Worker wk;
  wk.width = 8;
  ops.push_back(workload::end_iteration(0));
  wk.ops = std::move(ops);
  w.workers = {wk};
  const auto rec = engine::run_workload(w, s, {false});
  return {rec.iteration_ends()[0], rec.busy()[0][static_cast<int>(TimeCategory::Host)]};
}
}  // namespace

TEST(HostTimeline, AHostAheadOfTheGpuCostsNothing) {
  // Host issues the first block by 0.4 and the second by 0.9; the GPU ends them at 1.0 and 1.2.
  const auto [t, host] = run({workload::compute(0), workload::compute(1)});
  EXPECT_NEAR(t, 1.2, 1e-12);
  EXPECT_NEAR(host, 0.0, 1e-12);
}

TEST(HostTimeline, ASyncMakesTheNextLaunchBoundBlockWaitForTheHost) {
  // After the sync at 1.0 the host issues the second block until 1.5; the GPU would end it at 1.2, so 0.3 s is
  // filed under Host. Without the sync the host (at 0.4) would have issued it by 0.9: 1.2 s.
  const auto [t, host] = run({workload::compute(0), workload::HostSyncOp{}, workload::compute(1)});
  EXPECT_NEAR(t, 1.5, 1e-12);
  EXPECT_NEAR(host, 0.3, 1e-12);
}

TEST(HostTimeline, TheHostFallsBehindOverManyShortBlocks) {
  // Four short blocks: the host needs 0.5 s each, the GPU 0.2 s: the last ends when the host has issued it, at 2.0;
  // 2.0 - 0.8 = 1.2 s of the GPU waiting for the host.
  const auto [t, host] = run({workload::compute(1), workload::compute(1), workload::compute(1), workload::compute(1)});
  EXPECT_NEAR(t, 2.0, 1e-12);
  EXPECT_NEAR(host, 1.2, 1e-12);
}
