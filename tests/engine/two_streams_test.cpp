// The communication stream: an asynchronous in-node collective overlaps independent compute and is exposed only
// when the compute stream waits for it.
#include <gtest/gtest.h>

#include "../support/scenarios.hpp"
#include "llmsim/engine/engine.hpp"

using namespace llmsim;

namespace {
/// One worker: compute a (1 s), start a collective of `comm` seconds, compute b (`overlap` s), wait, compute c
/// (1 s), start a second collective right after the first, wait. Returns the iteration time and the exposed
/// tp communication.
std::pair<double, double> run(double comm, double overlap) {
  const auto s = test::shipped("scenarios/default.json", {"cluster.nodes=1", "parallelism.pp=1", "parallelism.tp=8"});
  workload::Workload w;
  workload::ComputeCost c1{"F", 1.0, {}, 0}, c2{"F", overlap, {}, 0}, ar{"tp all-reduce", comm, {}, 0};
  c1.by_category[0] = 1.0;
  c2.by_category[0] = overlap;
  ar.by_category[static_cast<int>(workload::TimeCategory::TpComm)] = comm;
  w.costs = {c1, c2, ar};
  workload::Worker wk;
  wk.width = 8;
  const auto F = workload::Pass::Forward;
  wk.ops = {workload::compute(0, {F, 0, 0}),        workload::comm_async(2, 7, F, 0),
            workload::compute(1, {F, 1, 0}),        workload::wait_event(7, 2),
            workload::comm_async(2, 8, F, 0),       workload::comm_async(2, 9, F, 0),
            workload::compute(0, {F, 2, 0}),        workload::wait_event(9, 2),
            workload::end_iteration(0)};
  w.workers = {wk};
  const auto rec = engine::run_workload(w, s, {false});
  return {rec.iteration_ends()[0], rec.busy()[0][static_cast<int>(workload::TimeCategory::TpComm)]};
}
}  // namespace

TEST(TwoStreams, CommunicationHiddenBehindIndependentComputeIsNotExposed) {
  // a (1) | comm 0.5 hidden by b (0.8) | c (1) while two queued comms (1.0 total) run: 1 + 0.8 + 1 = 2.8 s.
  const auto [t, exposed] = run(0.5, 0.8);
  EXPECT_NEAR(t, 2.8, 1e-12);
  EXPECT_NEAR(exposed, 0.0, 1e-12);
}

TEST(TwoStreams, OnlyTheUncoveredPartIsExposedAndTheStreamIsAFifo) {
  // comm 0.9 after a: b covers 0.3, 0.6 exposed (t = 1.9); then two comms of 0.9 queue (done at 3.7) while c
  // runs 1.9-2.9: 0.8 exposed. Total 3.7 s, exposed 1.4 s.
  const auto [t, exposed] = run(0.9, 0.3);
  EXPECT_NEAR(t, 3.7, 1e-12);
  EXPECT_NEAR(exposed, 1.4, 1e-12);
}
