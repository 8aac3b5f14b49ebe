// End to end: FP8 recipes and fused attention through the executable (one-line errors on hardware without
// them; an H100 run where FP8 GEMMs and flash attention shorten the iteration).
#include "../support/cli.hpp"

namespace {
using namespace llmsim::test;

TEST_F(Cli, Fp8OnA100IsOneLineNamingTheField) {
  const auto r = run("validate '" + source("scenarios/default.json") + "' --set training.fp8=fp8-cs");
  expect_input_error(r, "/training/fp8: the A100-SXM4-80GB preset has no fp8 peak");
}

TEST_F(Cli, Mxfp8OnHopperIsOneLineNamingTheField) {
  const auto r = run("run '" + source("scenarios/default.json") +
                     "' --set hardware=H100-SXM5-80GB --set training.fp8=mxfp8 --out out");
  expect_input_error(r, "/training/fp8: the H100-SXM5-80GB preset has no mxfp8 peak");
}

TEST_F(Cli, Fp8AndFlashAttentionOnH100ShortenTheIteration) {
  const std::string h100 = "--set hardware=H100-SXM5-80GB --set output.trace=false";
  const auto bf16 = run_summary("scenarios/default.json", h100);
  const auto fp8 = run_summary("scenarios/default.json", h100 + " --set training.fp8=fp8-cs");
  const auto flash = run_summary("scenarios/default.json", h100 + " --set training.attention=flash");
  EXPECT_LT(fp8["iteration_time_s"].get<double>(), bf16["iteration_time_s"].get<double>());
  EXPECT_LT(flash["iteration_time_s"].get<double>(), bf16["iteration_time_s"].get<double>());
  EXPECT_DOUBLE_EQ(fp8["model_tflops_per_gpu"].get<double>() * fp8["iteration_time_s"].get<double>(),
                   bf16["model_tflops_per_gpu"].get<double>() * bf16["iteration_time_s"].get<double>());  // same work
}

}  // namespace
