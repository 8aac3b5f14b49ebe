// Energy of a fixed kernel mix (hardware/power_model.hpp), derived by hand. H100-SXM5-80GB with matmul_efficiency
// 0.5, matmul_half_dim 0, memory_efficiency 1 and no launch overhead; its power model: idle 75 W, compute-bound
// 700 W, memory-bound 380 W (the Splitwise artifact's constants).
#include <gtest/gtest.h>

#include "../support/scenarios.hpp"
#include "llmsim/hardware/power_model.hpp"
#include "llmsim/util/error.hpp"

using namespace llmsim;

namespace {
scenario::Scenario h100(const std::string& half_dim = "0") {
  return test::shipped("scenarios/default.json",
                       {"hardware=H100-SXM5-80GB", "hardware.calibration.matmul_efficiency=0.5",
                        "hardware.calibration.matmul_half_dim=" + half_dim, "hardware.calibration.memory_efficiency=1",
                        "hardware.calibration.kernel_overhead_us=0"});
}
}  // namespace

TEST(PowerModel, EnergyOfAGemmAndAnElementwiseKernel) {
  const auto s = h100();
  const hardware::ComputeModel cm(s.hardware);
  // 8192^3 BF16 GEMM: 2 x 8192^3 / (989.4e12 x 0.5) = 2.2226 ms at full SM use: 700 - 75 = 625 W above idle.
  // Element-wise kernel of 3.35e9 bytes: 1 ms at full HBM use, no SMs: 380 - 75 = 305 W above idle.
  const auto g = model::gemm("g", model::Category::Gemm, 1, 8192, 8192, 8192, model::Precision::Bf16);
  const auto e = model::elementwise("e", model::Category::Elementwise, 3.35e9);
  const double tg = 2.0 * 8192 * 8192 * 8192 / (989.4e12 * 0.5);
  EXPECT_NEAR(hardware::dynamic_power(cm, g), 625, 1e-9);
  EXPECT_NEAR(hardware::dynamic_power(cm, e), 305, 1e-9);
  const double dynamic = hardware::dynamic_energy(cm, {g, e});
  EXPECT_NEAR(dynamic, tg * 625 + 1e-3 * 305, 1e-12);
  // Over the two kernels' time the GPU draws 700 W, then 380 W: idle power over their time plus the energy above it.
  const auto both = hardware::time_and_energy(cm, {g, e});
  EXPECT_NEAR(both.time, tg + 1e-3, 1e-12);
  EXPECT_NEAR(75 * both.time + both.energy, 700 * tg + 380 * 1e-3, 1e-9);
  EXPECT_NEAR(hardware::memory_bound_energy(cm, 2.0), 610, 1e-9);
}

TEST(PowerModel, ASmallGemmDrawsItsSmShareOfComputePowerAndTheRestByItsHbmShare) {
  // matmul_half_dim 64: a 64^3 GEMM uses 1/8 of the SMs (0.5 x 0.5^3 of peak over the 0.5 plateau) and
  // hbm = (24,576 B / 3350e9 B/s) / (2 x 64^3 / (989.4e12 x 0.0625)) of the bandwidth.
  const auto s = h100("64");
  const hardware::ComputeModel cm(s.hardware);
  const auto g = model::gemm("g", model::Category::Gemm, 1, 64, 64, 64, model::Precision::Bf16);
  const double hbm = (24576 / 3350e9) / (2.0 * 64 * 64 * 64 / (989.4e12 * 0.0625));
  EXPECT_NEAR(hardware::dynamic_power(cm, g), 625 * 0.125 + 305 * hbm * 0.875, 1e-9);
}

TEST(PowerModel, APresetWithoutPowerReportsNoEnergyAndBadPowerIsAnError) {
  const auto none = test::shipped("scenarios/default.json", {"hardware.power.compute_W=0", "hardware.power.memory_W=0",
                                                             "hardware.power.idle_W=0"});
  EXPECT_EQ(hardware::dynamic_power(hardware::ComputeModel(none.hardware),
                                    model::elementwise("e", model::Category::Elementwise, 1e9)),
            0.0);
  const auto e = test::error_of([] { test::shipped("scenarios/default.json", {"hardware.power.memory_W=500"}); });
  EXPECT_EQ(e.path(), "/hardware/power");
}

TEST(PowerModel, IdleOrMemoryPowerWithoutComputePowerIsAnError) {
  const auto e = test::error_of([] {
    test::shipped("scenarios/default.json", {"hardware.power.compute_W=0", "hardware.power.memory_W=0"});
  });
  EXPECT_EQ(e.path(), "/hardware/power/compute_W");  // idle_W 63 is still set
  test::shipped("scenarios/default.json",
                {"hardware.power.compute_W=0", "hardware.power.memory_W=0", "hardware.power.idle_W=0"});  // none: fine
}
