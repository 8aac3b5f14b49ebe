// H100's flash_* calibration against its table (data/validation/flash-attention-3-h100.csv: FlashAttention-3,
// Shah et al. 2024, Figs. 5 and 6, causal, head dim 128, 16,384 tokens per batch, hidden 2048): each row's
// kernel, built and timed as a run does, within 5% of the published TFLOP/s, mean within 3%.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <sstream>
#include <string>

#include "../support/scenarios.hpp"
#include "llmsim/hardware/compute_model.hpp"
#include "llmsim/model/fused_attention.hpp"

namespace llmsim {
namespace {

TEST(FlashAttentionValidation, EveryFa3RowWithin5PercentAndMeanWithin3Percent) {
  const auto s = test::shipped("scenarios/serving/llama2-70b-h100-code.json");
  ASSERT_EQ(s.hardware.name, "H100-SXM5-80GB");
  const hardware::ComputeModel cm(s.hardware);
  std::ifstream in(test::source_path("data/validation/flash-attention-3-h100.csv"));
  std::string line;
  std::getline(in, line);  // header
  int rows = 0;
  double sum = 0;
  while (std::getline(in, line)) {
    std::stringstream row(line);
    std::string direction, seq, tflops;
    std::getline(row, direction, ',');
    std::getline(row, seq, ',');
    std::getline(row, tflops, ',');
    model::LayerShape x;
    x.s = std::stod(seq), x.b = 16384 / x.s, x.a = x.kv = 16, x.d = 128, x.h = 2048;
    const model::Kernel forward = model::fused_attention_forward(x);
    const model::Kernel k = direction == "forward" ? forward : model::fused_attention_backward(forward);
    const double simulated = k.flops / cm.kernel_time(k) / 1e12, error = simulated / std::stod(tflops) - 1;
    EXPECT_LE(std::abs(error), 0.05) << line << ": simulated " << simulated;
    sum += std::abs(error), ++rows;
  }
  EXPECT_EQ(rows, 12);
  EXPECT_LE(sum / rows, 0.03);
}

}  // namespace
}  // namespace llmsim
