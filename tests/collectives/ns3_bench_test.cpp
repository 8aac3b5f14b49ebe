// The ns-3 packet-level model on a one-link-per-pair platform: a small ring all-reduce completes, no faster than
// its 2(n-1) latency hops and no faster than the links allow.
#include <gtest/gtest.h>

#include "../support/scenarios.hpp"
#include "llmsim/bench/collective_bench.hpp"

using namespace llmsim;

TEST(Ns3, SmallRingAllReduceOnOneHopPlatform) {
  const auto s = test::shipped("scenarios/topologies/one-hop-ns3.json");
  bench::BenchOptions o;
  o.min_bytes = o.max_bytes = 64 * 1024;
  const auto rows = bench::bench_collective(s, o);
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].algorithm, "ring");
  EXPECT_GT(rows[0].time_s, 2 * 3 * 2e-6);                        // 6 hops of 2 us at least
  EXPECT_LT(rows[0].busbw, 25e9);                                  // the 25 GB/s links bound busbw
  EXPECT_GT(rows[0].time_s, 2 * 3.0 / 4 * 64 * 1024 / 25e9);       // and the bandwidth term
}
