// Memory model against the ZeRO paper (Rajbhandari et al., SC'20, Fig. 1) and Korthikanti et al. 2022 (Table 2,
// GPT-3 175B shape of their Table 3).
#include <gtest/gtest.h>

#include "../support/scenarios.hpp"
#include "llmsim/workload/memory.hpp"

using namespace llmsim;

namespace {
/// 64 data-parallel GPUs in fp16 without activations: the ZeRO paper's setting (Psi = 7.5B, N_d = 64, K = 12).
double zero_total(int stage) {
  const auto s = test::shipped("scenarios/default.json",
                               {"cluster.nodes=8", "parallelism.tp=1", "parallelism.pp=1", "training.precision=fp16",
                                "training.recompute=none", "strategies.pipeline_schedule=1f1b",
                                "training.zero_stage=" + std::to_string(stage)});
  return workload::stage_memory(s, 7.5e9, 0, 0).total();
}
}  // namespace

TEST(MemoryModel, ZeroStagesReproduceTheZeroPaperFigure1) {
  EXPECT_DOUBLE_EQ(zero_total(0), 120e9);                   // (2 + 2 + K) Psi
  EXPECT_DOUBLE_EQ(zero_total(1), 15e9 + 15e9 + 90e9 / 64);  // 31.4 GB
  EXPECT_DOUBLE_EQ(zero_total(2), 15e9 + 105e9 / 64);        // 16.6 GB
  EXPECT_DOUBLE_EQ(zero_total(3), 120e9 / 64);               // 1.9 GB
}

TEST(MemoryModel, ActivationsPerLayerOfGpt3_175bMatchKorthikantiTable2) {
  // s = 2048, b = 1, h = 12288, a = 96, t = 8.
  const double sbh = 2048.0 * 12288;
  const auto base = test::shipped("scenarios/default.json",
                                  {"model=gpt3-175b", "parallelism.tp=8", "parallelism.pp=2", "training.seq_len=2048"});
  EXPECT_DOUBLE_EQ(workload::layer_activation_bytes(base, "none"), sbh * (10 + 24.0 / 8 + 5.0 * 96 * 2048 / (12288 * 8)));
  EXPECT_DOUBLE_EQ(workload::layer_activation_bytes(base, "selective"), sbh * (10 + 24.0 / 8));
  EXPECT_DOUBLE_EQ(workload::layer_activation_bytes(base, "full"), 2 * sbh);
  const auto sp = test::shipped("scenarios/default.json", {"model=gpt3-175b", "parallelism.tp=8", "parallelism.pp=2",
                                                           "training.seq_len=2048", "parallelism.sequence_parallel=true"});
  EXPECT_DOUBLE_EQ(workload::layer_activation_bytes(sp, "selective"), sbh * 34 / 8);
  EXPECT_DOUBLE_EQ(workload::layer_activation_bytes(sp, "none"), sbh * (34.0 / 8 + 5.0 * 96 * 2048 / (12288 * 8)));
}

TEST(MemoryModel, MoeLayerActivationsFollowTheRoutedTokens) {
  // Mixtral's shape (h 4096, top-2, f_e 14336 = 3.5h), s = 4096, b = 1, tp 2, selective recomputation:
  // dense sbh(10 + 24/2) = 22 sbh; the MoE layer trades the MLP input (2) and its 16/2 = 8 of intermediates for
  // 2 copies (4) and 8 * 2 * 14336/16384 = 14 of expert intermediates: 22 - 2 - 8 + 4 + 14 = 30 sbh.
  const auto s = test::shipped("scenarios/default.json", {"model=mixtral-8x7b", "training.seq_len=4096",
                                                          "training.recompute=selective", "strategies.pipeline_schedule=1f1b"});
  const double sbh = 4096.0 * 4096;
  EXPECT_DOUBLE_EQ(workload::layer_activation_bytes(s, "selective"), 22 * sbh);
  EXPECT_DOUBLE_EQ(workload::moe_layer_activation_bytes(s, "selective"), 30 * sbh);
  EXPECT_DOUBLE_EQ(workload::moe_layer_activation_bytes(s, "full"), 2 * sbh);
  EXPECT_DOUBLE_EQ(workload::chunk_activation_bytes(s, 0, 3, "selective"), 90 * sbh);
}
