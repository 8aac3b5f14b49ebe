// The ns-3 packet-level model on a one-link-per-pair platform: a small ring all-reduce completes no faster than its
// alpha-beta time and at most one TCP round trip per step slower.
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
  // 4 ranks: 2 (n - 1) = 6 steps, each a 16 KiB chunk over a 25 GB/s link of 2 us: 6 (2 + 0.655) us = 15.9 us,
  // the CM02 flow model's time on this platform. TCP acknowledges each step's segments: at most one more round
  // trip (2 x 2 us) per step, 39.9 us.
  const double step = 2e-6 + 16384 / 25e9;
  EXPECT_GE(rows[0].time_s, 6 * step);
  EXPECT_LE(rows[0].time_s, 6 * (step + 4e-6));
}
