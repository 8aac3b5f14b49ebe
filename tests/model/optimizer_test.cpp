// Optimizer state and step traffic per parameter (model/optimizer.hpp), by hand: Adam keeps m and v in fp32
// (8 bytes), SGD without momentum keeps nothing; a 16-bit run adds 4 bytes of fp32 master weights and writes its
// e-byte copy in the step; the step reads the fp32 gradient (4) and reads and writes the fp32 weights (8). With a
// bf16 state every state tensor has 2 bytes instead of 4.
#include <gtest/gtest.h>

#include "../support/scenarios.hpp"
#include "llmsim/model/optimizer.hpp"
#include "llmsim/workload/memory.hpp"

using namespace llmsim;
using model::Precision;

TEST(Optimizer, StateBytesPerParameter) {
  EXPECT_DOUBLE_EQ(model::optimizer_state_bytes("adam", Precision::Bf16, Precision::Fp32), 12);  // ZeRO paper's K = 12
  EXPECT_DOUBLE_EQ(model::optimizer_state_bytes("adam", Precision::Fp32, Precision::Fp32), 8);
  EXPECT_DOUBLE_EQ(model::optimizer_state_bytes("sgd", Precision::Fp32, Precision::Fp32), 0);
  EXPECT_DOUBLE_EQ(model::optimizer_state_bytes("sgd", Precision::Fp16, Precision::Fp32), 4);
}

TEST(Optimizer, StepBytesPerParameter) {
  EXPECT_DOUBLE_EQ(model::optimizer_step_bytes("adam", Precision::Bf16, Precision::Fp32), 4 + 8 + 16 + 2);
  EXPECT_DOUBLE_EQ(model::optimizer_step_bytes("adam", Precision::Fp32, Precision::Fp32), 4 + 8 + 16);
  EXPECT_DOUBLE_EQ(model::optimizer_step_bytes("sgd", Precision::Fp32, Precision::Fp32), 4 + 8);
  EXPECT_DOUBLE_EQ(model::optimizer_step_bytes("sgd", Precision::Fp16, Precision::Fp32), 4 + 8 + 2);
}

TEST(Optimizer, Bf16StateHalvesEveryStateTensor) {
  // Adam bf16 run: bf16 master (2) + bf16 m and v (4) = 6; step: fp32 gradient 4, master 2 x 2, moments 4 x 2,
  // the bf16 weights 2.
  EXPECT_DOUBLE_EQ(model::optimizer_state_bytes("adam", Precision::Bf16, Precision::Bf16), 6);
  EXPECT_DOUBLE_EQ(model::optimizer_step_bytes("adam", Precision::Bf16, Precision::Bf16), 4 + 4 + 8 + 2);
  EXPECT_DOUBLE_EQ(model::optimizer_state_bytes("sgd", Precision::Bf16, Precision::Bf16), 2);
  // An fp32 run keeps only the moments as state, and its step reads and writes its fp32 weights (8).
  EXPECT_DOUBLE_EQ(model::optimizer_state_bytes("adam", Precision::Fp32, Precision::Bf16), 4);
  EXPECT_DOUBLE_EQ(model::optimizer_step_bytes("adam", Precision::Fp32, Precision::Bf16), 4 + 8 + 8);
}

TEST(Optimizer, SgdShrinksTheMemoryModelsOptimizerStatesByAdamsMoments) {
  // 1e9 parameters on 8 data-parallel ranks with ZeRO-1: Adam bf16 12e9 / 8, SGD bf16 4e9 / 8; fp32 Adam 8e9.
  const std::vector<std::string> base = {"cluster.nodes=1", "parallelism.tp=1", "parallelism.pp=1",
                                         "strategies.pipeline_schedule=1f1b", "training.zero_stage=1"};
  auto with = [&](std::vector<std::string> extra) {
    extra.insert(extra.begin(), base.begin(), base.end());
    return workload::state_memory(test::shipped("scenarios/default.json", extra), 1e9);
  };
  EXPECT_DOUBLE_EQ(with({"training.precision=bf16"}).optimizer, 12e9 / 8);
  EXPECT_DOUBLE_EQ(with({"training.precision=bf16", "training.optimizer=sgd"}).optimizer, 4e9 / 8);
  EXPECT_DOUBLE_EQ(with({"training.precision=fp32", "training.optimizer=sgd"}).optimizer, 0);
  EXPECT_DOUBLE_EQ(with({"training.precision=fp32"}).optimizer, 8e9 / 8);
  EXPECT_DOUBLE_EQ(with({"training.precision=bf16", "training.optimizer_state_precision=bf16"}).optimizer, 6e9 / 8);
}

TEST(Optimizer, UnknownOptimizerIsAnErrorNamingThePath) {
  const auto e = test::error_of([] { test::shipped("scenarios/default.json", {"training.optimizer=lamb"}); });
  EXPECT_NE(std::string(e.what()).find("/training/optimizer"), std::string::npos);
}
