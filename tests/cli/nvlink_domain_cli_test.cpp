// End to end: rack-scale NVLink domains (GB200 NVL72 is one node of 72 GPUs, docs/hardware.md). tp may span
// the whole domain and no more; NVFP4 on Hopper is a one-line error; an all-to-all inside the domain beats the
// same all-to-all across 8-GPU nodes by the ratio of NVLink to NIC bandwidth.
#include "../support/cli.hpp"

namespace {
using namespace llmsim::test;

/// `base` with a 72-head GPT shape (hidden 2304 / 72 = 32) so tp 72 divides the heads.
const std::string kTp72 =
    "--set hardware=GB200-NVL72 --set cluster.nodes=1 --set parallelism.tp=72 --set parallelism.pp=1 "
    "--set model.heads=72 --set model.kv_heads=72 --set output.trace=false";

TEST_F(Cli, Tp72RunsInsideOneNvl72Domain) {
  const auto s = run_summary("scenarios/default.json", kTp72);
  EXPECT_EQ(s["status"], "ok");
  EXPECT_EQ(s["gpus"], 72);
  EXPECT_GT(s["time_breakdown_s"]["tp_comm"].get<double>(), 0);
}

TEST_F(Cli, TpBeyondTheNvlinkDomainIsOneLine) {
  const auto r = run("validate '" + source("scenarios/default.json") +
                     "' --set hardware=B200 --set cluster.nodes=2 --set parallelism.tp=16 --set parallelism.pp=1 "
                     "--set model.heads=32 --set model.kv_heads=32");
  expect_input_error(r, "/parallelism/tp: tp 16 spans more than one NVLink domain (cluster.gpus_per_node = 8");
}

TEST_F(Cli, Nvfp4OnHopperIsOneLineNamingThePath) {
  expect_input_error(run("validate '" + source("scenarios/default.json") +
                         "' --set hardware=H100-SXM5-80GB --set training.fp8=nvfp4"),
                     "/training/fp8: the H100-SXM5-80GB preset has no nvfp4 peak");
  expect_input_error(run("validate '" + source("scenarios/serving/llama2-70b-h100-code.json") +
                         "' --set serving.precision=nvfp4"),
                     "/serving/precision: the H100-SXM5-80GB preset has no nvfp4 peak");
}

TEST_F(Cli, AllToAllInsideNvl72BeatsEightGpuNodesByTheBandwidthRatio) {
  const json b200 = json::parse(read_file(source("configs/hardware/B200.json")));
  const json gb200 = json::parse(read_file(source("configs/hardware/GB200-NVL72.json")));
  // Inside the domain each GPU sends 63/64 of its buffer over its own NVLink; on 8-GPU nodes 56/64 leave the
  // node through the GPU's own NIC (the 7/64 on NVLink overlap with it).
  const double nvlink = gb200["nvlink_bandwidth_GBps"].get<double>() * gb200["calibration"]["nvlink_efficiency"].get<double>();
  const double nic = b200["nic_Gbps"].get<double>() / 8 * b200["calibration"]["network_efficiency"].get<double>();
  const double expected = (56.0 / 64 / nic) / (63.0 / 64 / nvlink);  // 13.6 with the shipped numbers
  // Time [s] of one 256 MiB-per-rank all-to-all over the first 64 GPUs of `hardware` on `nodes` nodes.
  const auto all_to_all_64 = [&](const std::string& hardware, int nodes) {
    const auto r = run("bench-collective '" + source("scenarios/default.json") + "' --set hardware=" + hardware +
                       " --set cluster.nodes=" + std::to_string(nodes) + " --set training.global_batch=576"
                       " --collective all-to-all --ranks 64 --min 256M --max 256M --csv a2a.csv");
    EXPECT_EQ(r.code, 0) << r.err;
    const auto rows = lines(read_file(dir_ / "a2a.csv"));  // size_bytes,algorithm,time_s,...
    EXPECT_EQ(rows.size(), 2u);
    const auto time_at = rows.at(1).find(',', rows.at(1).find(',') + 1) + 1;
    return std::stod(rows.at(1).substr(time_at));
  };
  const double inside = all_to_all_64("GB200-NVL72", 1);
  const double across = all_to_all_64("B200", 8);
  EXPECT_NEAR(across / inside, expected, 0.05 * expected);
  EXPECT_NEAR(inside, 256.0 * 1024 * 1024 * 63 / 64 / (nvlink * 1e9), 0.05 * inside);
}

}  // namespace
