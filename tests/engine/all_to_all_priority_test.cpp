// FlowMoE's priority (CollectiveSpec::yields_to_all_to_all): a low-priority all-reduce that both workers start
// while their all-to-all is pending begins exactly when the all-to-all ends; a normal one starts at once and
// shares the NIC with it.
#include <gtest/gtest.h>

#include "../support/scenarios.hpp"
#include "llmsim/engine/engine.hpp"

using namespace llmsim;
using workload::TimeCategory;

namespace {
struct Times {
  double a2a_start, a2a_end, ar_start, ar_end;
};

/// Two workers on the two nodes of the RTX 3090 scenario; each starts an all-to-all-v (64 MB each way) and an
/// all-reduce of 64 MB, then waits for both.
Times run(bool yields) {
  const auto s = test::shipped("scenarios/moe/flowmoe/gpt2-tiny-moe.json");
  workload::Workload w;
  w.groups = {{0, 1}, {0, 1}};  // the expert-parallel and the data-parallel group: two streams
  const double bytes = 64e6;
  w.collectives.push_back({"ep dispatch", 0, collectives::Kind::AllToAllV, bytes / 2, TimeCategory::EpComm,
                           collectives::Algorithm::Direct, {0, bytes, bytes, 0}});
  workload::CollectiveSpec ar{"dp grad chunk", 1, collectives::Kind::AllReduce, bytes, TimeCategory::DpComm,
                              collectives::Algorithm::Ring, {}};
  ar.yields_to_all_to_all = yields;
  w.collectives.push_back(ar);
  for (int node = 0; node < 2; ++node) {
    workload::Worker wk;
    wk.node = node;
    wk.first_rank = node * 8;
    wk.ops = {workload::start_collective(0), workload::start_collective(1), workload::wait_collective(0),
              workload::wait_collective(1), workload::end_iteration(0)};
    w.workers.push_back(wk);
  }
  const auto rec = engine::run_workload(w, s, {true, true});
  Times t{};
  for (const auto& e : rec.events())
    if (e.worker == 0 && e.stream == 1) (e.ref == 0 ? t.a2a_start : t.ar_start) = e.start, (e.ref == 0 ? t.a2a_end : t.ar_end) = e.end;
  return t;
}
}  // namespace

TEST(AllToAllPriority, AYieldingAllReduceStartsWhenThePendingAllToAllEnds) {
  const Times t = run(true);
  EXPECT_EQ(t.a2a_start, 0.0);
  EXPECT_GT(t.a2a_end, 0.0);
  EXPECT_DOUBLE_EQ(t.ar_start, t.a2a_end);
  // Alone on the NIC: 64 MB each way at 100 Gb/s x 0.92 takes at least 64e6 / 11.5e9 = 5.57 ms.
  EXPECT_NEAR(t.a2a_end, 64e6 / (100e9 / 8 * 0.92), 0.05e-3);
}

TEST(AllToAllPriority, ANormalAllReduceStartsAtOnceAndSlowsTheAllToAll) {
  const Times t = run(false);
  EXPECT_EQ(t.ar_start, 0.0);
  EXPECT_GT(t.a2a_end, 64e6 / (100e9 / 8 * 0.92) + 1e-3);  // shares the NIC with the all-reduce
}
