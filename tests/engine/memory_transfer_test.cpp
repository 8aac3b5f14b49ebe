// Off-chip memory transfers (MemoryStartOp / MemoryWaitOp) are real flows: a chiplet of a nop-tree reading from
// its group's DRAM is limited by the slower of the DRAM I/O link and its own port.
#include <gtest/gtest.h>

#include "../support/network.hpp"
#include "../support/scenarios.hpp"
#include "llmsim/engine/engine.hpp"

using namespace llmsim;

TEST(MemoryTransfer, ReadIsLimitedByTheSlowerLink) {
  // scenarios/topologies/nop-tree.json: the group's DRAM I/O link carries 800 GB/s; the chiplet's port is its 4
  // NICs of 2000 Gb/s, 4 x 250 GB/s x the calibrated network efficiency (0.92) = 920 GB/s. The DRAM link is the
  // bottleneck: 1 GB takes 1e9 / 800e9 = 1.25 ms plus a few hop latencies (microseconds).
  const auto s = test::shipped("scenarios/topologies/nop-tree.json");
  workload::Workload w;
  for (int node = 0; node < 2; ++node) {
    workload::Worker wk;
    wk.node = wk.first_rank = node;
    w.workers.push_back(wk);
  }
  w.workers[1].ops = {workload::read_memory(0, 1e9, 7), workload::wait_memory(7), workload::end_iteration(0)};
  w.workers[0].ops = {workload::end_iteration(0)};
  const auto rec = engine::run_workload(w, s, {false, false});
  ASSERT_GT(4 * test::nic(s), 800e9);
  EXPECT_NEAR(rec.iteration_ends()[0], 1e9 / 800e9, 20e-6);
  EXPECT_NEAR(rec.busy()[1][static_cast<int>(workload::TimeCategory::Offload)], rec.iteration_ends()[0], 1e-12);
}
