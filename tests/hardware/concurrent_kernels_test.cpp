// Two kernel streams on one GPU (hardware/concurrent_kernels.hpp), values derived by hand from the header's rule:
// both kernels progress at phi = min(1, 1/(sm_a + sm_b), 1/(hbm_a + hbm_b)) of their alone speed.
// A100-SXM4-80GB with matmul_efficiency 0.5, matmul_half_dim 0 (no shape penalty), memory_efficiency 1 and no
// launch overhead: a BF16 GEMM runs at 312e12 x 0.5 = 156e12 FLOP/s, HBM moves 2039e9 bytes/s.
#include <random>

#include <gtest/gtest.h>

#include "../support/scenarios.hpp"
#include "llmsim/hardware/concurrent_kernels.hpp"

using namespace llmsim;

namespace {
hardware::ComputeModel a100(const std::string& half_dim = "0") {
  const auto s = test::shipped("scenarios/default.json",
                               {"hardware=A100-SXM4-80GB", "hardware.calibration.matmul_efficiency=0.5",
                                "hardware.calibration.matmul_half_dim=" + half_dim, "hardware.calibration.memory_efficiency=1",
                                "hardware.calibration.kernel_overhead_us=0"});
  return hardware::ComputeModel(s.hardware);
}
// 8192^3 GEMM: 2 x 8192^3 FLOP / 156e12 = 7.0484 ms; its 3 x 8192^2 x 2 bytes take 0.19748 ms of HBM time.
model::Kernel big_gemm() { return model::gemm("g", model::Category::Gemm, 1, 8192, 8192, 8192, model::Precision::Bf16); }
// An element-wise kernel moving 2.039e9 bytes: 1 ms, all of HBM, no SMs counted.
model::Kernel one_ms_elementwise() { return model::elementwise("e", model::Category::Elementwise, 2.039e9); }
const double kGemm = 2.0 * 8192 * 8192 * 8192 / 156e12, kGemmHbm = 3.0 * 8192 * 8192 * 2 / 2039e9;
}  // namespace

TEST(ConcurrentKernels, DemandsOfOneKernel) {
  const auto cm = a100();
  const auto g = hardware::kernel_demand(cm, big_gemm());
  EXPECT_NEAR(g.time, kGemm, 1e-15);
  EXPECT_NEAR(g.sm, 1.0, 1e-12);
  EXPECT_NEAR(g.hbm, kGemmHbm / kGemm, 1e-12);  // 0.0280
  const auto e = hardware::kernel_demand(cm, one_ms_elementwise());
  EXPECT_NEAR(e.time, 1e-3, 1e-15);
  EXPECT_EQ(e.sm, 0.0);
  EXPECT_NEAR(e.hbm, 1.0, 1e-12);
}

TEST(ConcurrentKernels, TwoFullSizeGemmsTakeTurns) {
  const auto cm = a100();
  EXPECT_NEAR(hardware::concurrent_time(cm, {big_gemm()}, {big_gemm()}), 2 * kGemm, 1e-12);  // phi = 1/2
}

TEST(ConcurrentKernels, TwoMemoryBoundKernelsShareTheBandwidth) {
  const auto cm = a100();
  EXPECT_NEAR(hardware::concurrent_time(cm, {one_ms_elementwise()}, {one_ms_elementwise(), one_ms_elementwise()}), 3e-3,
              1e-15);
}

TEST(ConcurrentKernels, ElementwiseBesideAGemmCostsOnlyTheGemmsHbmShare) {
  // phi = 1 / (1 + h), h = the GEMM's HBM share: the two 1 ms kernels take 2 (1 + h) ms, during which the GEMM does
  // 2 ms of its work; it finishes alone. Total t_gemm + 2 ms x h = 7.0484 + 0.0560 ms.
  const auto cm = a100();
  const double h = kGemmHbm / kGemm;
  EXPECT_NEAR(hardware::concurrent_time(cm, {big_gemm()}, {one_ms_elementwise(), one_ms_elementwise()}),
              kGemm + 2e-3 * h, 1e-12);
}

TEST(ConcurrentKernels, SmallGemmsRunSideBySide) {
  // matmul_half_dim 64: a 64^3 GEMM reaches 0.5 x (64/128)^3 = 0.0625 of peak, so it uses 1/8 of the SMs
  // (2 x 64^3 / (312e12 x 0.0625) = 26.9 ns) and 24,576 bytes / 26.9 ns = 0.448 of HBM. Two of them fit side by
  // side (0.25 of the SMs, 0.896 of HBM): together they take the time of one.
  const auto cm = a100("64");
  const auto g = model::gemm("g", model::Category::Gemm, 1, 64, 64, 64, model::Precision::Bf16);
  const double alone = 2.0 * 64 * 64 * 64 / (312e12 * 0.0625);
  EXPECT_NEAR(hardware::kernel_demand(cm, g).sm, 0.125, 1e-12);
  EXPECT_NEAR(hardware::concurrent_time(cm, {g}, {g}), alone, 1e-18);
  EXPECT_NEAR(hardware::concurrent_time(cm, {g}, {}), alone, 1e-18);  // one stream: its own time
}

TEST(ConcurrentKernels, ManyKernelsEndBetweenTheLongerStreamAndBothInTurn) {
  // Two streams of 400 kernels of mixed shapes (a fixed generator): together they take at least the longer stream
  // alone and at most both in turn. Each pass of the rule ends one kernel exactly; before that was so, a rounding
  // residue of a kernel's share could stop the clock (GPT-2 large under FAL hung).
  const auto cm = a100("189");
  std::mt19937 gen(7);
  std::uniform_int_distribution<int> dim(16, 4096);
  std::uniform_real_distribution<double> bytes(1e3, 1e9);
  auto stream = [&] {
    std::vector<model::Kernel> k;
    for (int i = 0; i < 400; ++i)
      k.push_back(i % 3 ? model::gemm("g", model::Category::Gemm, 1, dim(gen), dim(gen), dim(gen), model::Precision::Bf16)
                        : model::elementwise("e", model::Category::Elementwise, bytes(gen)));
    return k;
  };
  auto alone = [&](const std::vector<model::Kernel>& k) {
    double t = 0;
    for (const auto& x : k) t += cm.kernel_time(x);
    return t;
  };
  for (int trial = 0; trial < 50; ++trial) {
    const auto a = stream(), b = stream();
    const double t = hardware::concurrent_time(cm, a, b), ta = alone(a), tb = alone(b);
    EXPECT_GE(t, std::max(ta, tb) * (1 - 1e-12));
    EXPECT_LE(t, (ta + tb) * (1 + 1e-12));
  }
}
