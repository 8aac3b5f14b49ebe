// Overlapped pipeline sends (Megatron-Core's overlap_p2p_comm): a send left in flight costs the sender only the
// part of its transfer that the next compute does not cover, unless the sender waits for it first.
#include <gtest/gtest.h>

#include "../support/scenarios.hpp"
#include "llmsim/engine/engine.hpp"

using namespace llmsim;

namespace {
using workload::Pass;
using workload::TimeCategory;

constexpr double kBytes = 4e9;  // per GPU: a transfer of a few tenths of a second over the nodes' NICs

workload::ComputeCost block(double seconds) {
  workload::ComputeCost c{"F", seconds, {}, 0};
  c.by_category[static_cast<int>(TimeCategory::Gemm)] = seconds;
  return c;
}

/// A sender on node 2i and its receiver on node 2i+1, one tp 8 group each. The sender computes 1 s (cost 0),
/// sends, then runs `between` and a second compute (cost `second`: 0 = 1 s, 1 = 0.1 s) of pass `next`.
void add_pair(workload::Workload& w, bool overlapped, bool wait_forward, Pass next, int second) {
  const int node = static_cast<int>(w.workers.size());
  workload::Worker sender, receiver;
  sender.node = node, receiver.node = node + 1;
  sender.width = receiver.width = 8;
  sender.first_rank = 8 * node, receiver.first_rank = 8 * (node + 1);
  const workload::PassStep message{Pass::Forward, 0, 1};
  sender.ops = {workload::compute(0, {Pass::Forward, 0, 0}), workload::send_to(node + 1, message, kBytes, overlapped)};
  if (wait_forward) sender.ops.push_back(workload::wait_sends(Pass::Forward));
  sender.ops.push_back(workload::compute(second, {next, 1, 0}));
  sender.ops.push_back(workload::end_iteration(0));
  receiver.ops = {workload::recv_from(node, message), workload::end_iteration(0)};
  w.workers.push_back(sender), w.workers.push_back(receiver);
}

double pp_comm(const report::Recorder& rec, int worker) {
  return rec.busy()[worker][static_cast<int>(TimeCategory::PpComm)];
}

/// End of the send event of `worker` (the delivery).
double send_end(const report::Recorder& rec, int worker) {
  for (const auto& e : rec.events())
    if (e.worker == worker && e.stream == 1) return e.end;
  return -1;
}
}  // namespace

TEST(OverlappedSend, TheNextComputeHidesTheTransferUnlessTheSenderWaitsForIt) {
  // Four independent pairs on eight nodes (separate NICs): the same transfer x in each.
  const auto s = test::shipped("scenarios/default.json", {"cluster.nodes=8", "parallelism.pp=4", "parallelism.tp=8"});
  workload::Workload w;
  w.costs = {block(1.0), block(0.1)};
  add_pair(w, false, false, Pass::Backward, 0);  // 0: blocking: the sender waits x
  add_pair(w, true, false, Pass::Backward, 0);   // 2: overlapped, a backward of 1 s covers x
  add_pair(w, true, true, Pass::Forward, 0);     // 4: overlapped, but the next forward waits for it: as blocking
  add_pair(w, true, false, Pass::Backward, 1);   // 6: overlapped, a backward of 0.1 s covers 0.1 of x
  const auto rec = engine::run_workload(w, s, std::vector<bool>(w.workers.size(), true));
  const double x = pp_comm(rec, 0);
  ASSERT_GT(x, 0.15);
  ASSERT_LT(x, 0.9);  // the covering compute of pair 2 is longer than the transfer
  EXPECT_NEAR(send_end(rec, 0), 1.0 + x, 1e-9);
  EXPECT_NEAR(pp_comm(rec, 2), 0.0, 1e-12);
  EXPECT_NEAR(send_end(rec, 2), 1.0 + x, 1e-9);  // delivered while the backward ran, waited for at 2.0
  EXPECT_NEAR(pp_comm(rec, 4), x, 1e-9);
  EXPECT_NEAR(pp_comm(rec, 6), x - 0.1, 1e-9);
  EXPECT_NEAR(send_end(rec, 6), 1.0 + x, 1e-9);
  EXPECT_NEAR(rec.iteration_ends()[0], 2.0 + x, 1e-9);  // the blocking and waiting senders end last
}
