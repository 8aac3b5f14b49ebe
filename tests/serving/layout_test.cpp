// A serving replica's layout (scenario/typed.cpp check_serving): training-only parallelism fields are one-line
// errors, not silently unused.
#include <gtest/gtest.h>

#include "../support/scenarios.hpp"

using namespace llmsim;

TEST(ServingLayouts, TrainingOnlyLayoutFieldsAreErrorsNotIgnored) {
  // A serving replica runs Megatron tp blocks over an even split: FAL, Megatron-Core's embedding-loss split and an
  // uneven last stage would be silently unused.
  const std::string f = "scenarios/serving/llama3.1-8b-h100-offline.json";
  EXPECT_EQ(test::error_of([&] { test::shipped(f, {"parallelism.tp_variant=fal"}); }).path(), "/parallelism");
  EXPECT_EQ(test::error_of([&] { test::shipped(f, {"parallelism.pipeline_split=embedding-loss"}); }).path(),
            "/parallelism");
  EXPECT_EQ(test::error_of([&] { test::shipped(f, {"parallelism.last_stage_layers=30"}); }).path(),
            "/parallelism/last_stage_layers");
}
