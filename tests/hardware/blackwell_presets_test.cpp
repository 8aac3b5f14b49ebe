// The Hopper and Blackwell presets (configs/hardware/, docs/hardware.md): every peak a precision looks up equals
// the datasheet figure typed in here (dense, per GPU: the system table divided by its GPU count, sparse rows
// halved), and the precisions a GPU's tensor cores lack have no peak.
#include <gtest/gtest.h>

#include <map>
#include <string>

#include "../support/scenarios.hpp"
#include "llmsim/model/precision.hpp"

using namespace llmsim;

namespace {

using Peaks = std::map<std::string, double>;  // precision -> dense TFLOP/s (TOPS for int8)

struct Preset {
  const char* scenario;  ///< a shipped scenario using it
  const char* name;
  Peaks peaks;
  double memory_gib, hbm_GBps, nvlink_GBps;
  int gpus_per_node, nics;
  double nic_Gbps;
};

// HGX B200: 8 GPUs, FP4 144 / FP8 72 / INT8 72 / BF16 36 / TF32 18 PFLOPS sparse, FP32 600 and FP64 296 TFLOPS.
// GB200 NVL72: 72 GPUs, 1440 / 720 / 720 / 360 / 180 PFLOPS sparse, FP32 5760 and FP64 2880 TFLOPS.
// GB300 NVL72: 72 GPUs, FP4 1080 PFLOPS dense, FP8 720 / INT8 23 / BF16 360 / TF32 180 sparse, FP32 6000, FP64 100.
const Preset kPresets[] = {
    {"scenarios/hardware/b200-llama3-70b.json", "B200",
     {{"fp64", 37}, {"fp32", 75}, {"tf32", 1125}, {"bf16", 2250}, {"fp16", 2250}, {"fp8", 4500}, {"int8", 4500},
      {"mxfp8", 4500}, {"nvfp4", 9000}},
     179.1, 8000, 900, 8, 8, 400},
    {"scenarios/hardware/gb200-nvl72-llama3-405b.json", "GB200-NVL72",
     {{"fp64", 40}, {"fp32", 80}, {"tf32", 1250}, {"bf16", 2500}, {"fp16", 2500}, {"fp8", 5000}, {"int8", 5000},
      {"mxfp8", 5000}, {"nvfp4", 10000}},
     185.0, 8000, 900, 72, 72, 400},
    {"scenarios/hardware/gb300-nvl72-llama3-70b.json", "GB300-NVL72",
     {{"fp64", 1.39}, {"fp32", 83.3}, {"tf32", 1250}, {"bf16", 2500}, {"fp16", 2500}, {"fp8", 5000}, {"int8", 159.7},
      {"mxfp8", 5000}, {"nvfp4", 15000}},
     277.5, 8000, 900, 72, 72, 800},
};

}  // namespace

TEST(BlackwellPresets, PeaksByPrecisionAreTheDatasheetNumbers) {
  for (const auto& p : kPresets) {
    const auto s = test::shipped(p.scenario);
    const auto& hw = s.hardware;
    EXPECT_EQ(hw.name, p.name);
    ASSERT_EQ(hw.peak_flops.size(), p.peaks.size()) << p.name;
    for (const auto& [name, tflops] : p.peaks) {
      const auto precision = model::precision_from_name(name, "/x");
      EXPECT_DOUBLE_EQ(model::peak_flops(hw, precision, "/x"), tflops * 1e12) << p.name << " " << name;
    }
    EXPECT_DOUBLE_EQ(hw.memory_bytes, p.memory_gib * 1024 * 1024 * 1024) << p.name;
    EXPECT_DOUBLE_EQ(hw.memory_bandwidth, p.hbm_GBps * 1e9) << p.name;
    EXPECT_DOUBLE_EQ(hw.nvlink_bandwidth, p.nvlink_GBps * 1e9) << p.name;  // 1.8 TB/s bidirectional
    EXPECT_EQ(hw.gpus_per_node, p.gpus_per_node) << p.name;
    EXPECT_EQ(hw.nics_per_node, p.nics) << p.name;
    EXPECT_DOUBLE_EQ(hw.nic_bandwidth, p.nic_Gbps * 1e9 / 8) << p.name;
    EXPECT_TRUE(hw.nvswitch_reduction) << p.name;
  }
}

TEST(BlackwellPresets, NvlinkDomainIsTheNode) {
  // A preset's node is its NVLink domain: the cluster takes 72 GPUs and 72 NICs per NVL72 rack by default.
  const auto s = test::shipped("scenarios/hardware/gb200-nvl72-llama3-405b.json");
  EXPECT_EQ(s.cluster.gpus_per_node, 72);
  EXPECT_EQ(s.cluster.nics_per_node, 72);
  EXPECT_EQ(s.cluster.total_gpus(), 576);
}

TEST(BlackwellPresets, HopperAndAmpereHaveNoBlockScaledPeaks) {
  for (const std::string hw : {"H100-SXM5-80GB", "H200", "H800", "A100-SXM4-80GB", "A100-SXM4-40GB", "A800"}) {
    const auto s = test::shipped("scenarios/default.json", {"hardware=" + hw});
    EXPECT_FALSE(model::has_peak(s.hardware, model::Precision::Nvfp4)) << hw;
    EXPECT_FALSE(model::has_peak(s.hardware, model::Precision::Mxfp8)) << hw;
    const auto e = test::error_of([&] { model::peak_flops(s.hardware, model::Precision::Nvfp4, "/training/fp8"); });
    EXPECT_EQ(e.path(), "/training/fp8") << hw;
  }
}

TEST(HopperPresets, H200IsItsDatasheet) {
  // H200 SXM datasheet: 141 GB HBM3e at 4.8 TB/s, NVLink 900 GB/s; dense = sparse / 2 (BF16 1979*, FP8 3958*)
  // at the whitepaper's exact GH100 values; nvidia-smi total 143771 MiB.
  const auto s = test::shipped("scenarios/default.json", {"hardware=H200"});
  EXPECT_DOUBLE_EQ(model::peak_flops(s.hardware, model::Precision::Bf16, "/x"), 989.4e12);
  EXPECT_DOUBLE_EQ(model::peak_flops(s.hardware, model::Precision::Fp8, "/x"), 1978.9e12);
  EXPECT_DOUBLE_EQ(s.hardware.memory_bandwidth, 4800e9);
  EXPECT_DOUBLE_EQ(s.hardware.nvlink_bandwidth, 450e9);
  EXPECT_NEAR(s.hardware.memory_bytes, 143771.0 * 1024 * 1024, 0.01 * 1024 * 1024 * 1024);
}
