// FlowMoE's S_p search (run/chunk_search.hpp) on a known function of S_p: golden section over log2(S_p) in
// [2^17, 2^24] narrows the bracket by 0.618 per step, from 7 octaves to under a quarter octave after 7 steps
// (7 * 0.618^7 = 0.24), i.e. 2 + 7 = 9 evaluations, and lands within that quarter octave of the minimum.
#include <gtest/gtest.h>

#include <cmath>

#include "../support/scenarios.hpp"
#include "llmsim/run/chunk_search.hpp"

using namespace llmsim;

TEST(ChunkSearch, GoldenSectionFindsTheMinimumOfAUnimodalIterationTime) {
  const auto s = test::shipped("scenarios/moe/flowmoe/gpt2-tiny-moe.json");
  const auto search = run::search_gradient_chunk(s, [](const scenario::Scenario& c) {
    const double bytes = c.strategies.moe_pipeline.params.bytes("allreduce_chunk_bytes");
    return 1.0 + std::pow(std::log2(bytes) - 20.0, 2);  // minimum at 1 MiB
  });
  ASSERT_EQ(search.evaluations.size(), 9u);
  EXPECT_NEAR(std::log2(search.best_bytes), 20.0, 0.25);
  EXPECT_EQ(std::fmod(search.best_bytes, 1024.0), 0.0);  // whole KiB, as FlowMoE rounds
  for (const auto& [bytes, t] : search.evaluations) {
    EXPECT_GE(bytes, 128.0 * 1024);
    EXPECT_LE(bytes, 16.0 * 1024 * 1024);
    EXPECT_GE(t, 1.0 + std::pow(std::log2(search.best_bytes) - 20.0, 2) - 1e-12);
  }
}

TEST(ChunkSearch, AFailingCandidateIsAnErrorNotASilentChoice) {
  const auto s = test::shipped("scenarios/moe/flowmoe/gpt2-tiny-moe.json");
  EXPECT_THROW(run::search_gradient_chunk(s, [](const scenario::Scenario&) -> double { throw SimulationError("x"); }),
               SimulationError);
}
