// Serving engine presets (scenario/engine_preset.hpp) and the offline workload: what an engine fills in (its fit on
// the scenario's hardware, its scheduler and KV cache defaults beneath the scenario's own values), and bad input as
// one-line errors naming the JSON path.
#include <gtest/gtest.h>

#include "../support/cli.hpp"
#include "llmsim/serving/workload.hpp"
#include "llmsim/util/error.hpp"
#include "serving_scenario.hpp"

namespace {
using llmsim::test::json;

json offline(const std::string& hardware, const json& engine, const json& workload) {
  json j = llmsim::test::serving_json(hardware, 1, "llama3.1-8b");
  j["serving"] = {{"precision", "fp8"}, {"engine", engine}, {"workload", workload}};
  return j;
}
const json kWorkload = {{"name", "offline"}, {"requests", 5}, {"input_tokens", 100}, {"output_tokens", 7}};
const json kTrt = {{"name", "tensorrt-llm-0.17"}};

json preset(const std::string& file) {
  return json::parse(llmsim::test::read_file(llmsim::test::source("configs/engines/" + file + ".json")));
}

TEST(Engine, DefaultIsVllm2023WithItsFitOnTheHardware) {
  const auto s = llmsim::test::serving_scenario(llmsim::test::serving_json("A100-SXM4-80GB", 2));
  const json fit = preset("vllm-2023")["fits"]["A100-SXM4-80GB"];
  EXPECT_EQ(s.serving.engine.name, "vllm-2023");
  EXPECT_DOUBLE_EQ(s.serving.engine.step_overhead, fit["step_overhead_us"].get<double>() * 1e-6);
  EXPECT_DOUBLE_EQ(s.serving.engine.collective_hop, fit["collective_hop_us"].get<double>() * 1e-6);
  EXPECT_EQ(s.serving.scheduler.name, "vllm");
  EXPECT_EQ(s.serving.kv_cache.block_size, 16);
  EXPECT_FALSE(s.serving.kv_cache.free_basis);
}

TEST(Engine, AnEngineFitMayCarryItsOwnGemmCurve) {
  // vllm-2023's H100 fit ran with a half dimension of 66 (the Splitwise fit); the TensorRT-LLM fit has none of its
  // own (the device's serving curve); 0 given explicitly also means the device's.
  const json vllm = {{"name", "vllm-2023"}};
  EXPECT_DOUBLE_EQ(llmsim::test::serving_scenario(offline("H100-SXM5-80GB", vllm, kWorkload)).serving.engine.matmul_half_dim,
                   66);
  EXPECT_DOUBLE_EQ(llmsim::test::serving_scenario(offline("H100-SXM5-80GB", kTrt, kWorkload)).serving.engine.matmul_half_dim,
                   0);
  const json zero = {{"name", "vllm-2023"}, {"matmul_half_dim", 0}};
  EXPECT_DOUBLE_EQ(llmsim::test::serving_scenario(offline("H100-SXM5-80GB", zero, kWorkload)).serving.engine.matmul_half_dim,
                   0);
}

TEST(Engine, TensorRtLlmBringsItsSchedulerAndKvCacheUnderTheScenariosValues) {
  json j = offline("H100-SXM5-80GB", kTrt, kWorkload);
  auto s = llmsim::test::serving_scenario(j);
  const json d = preset("tensorrt-llm-0.17")["defaults"];
  EXPECT_EQ(s.serving.scheduler.name, d["scheduler"]["name"]);
  EXPECT_EQ(s.serving.scheduler.params.integer("max_num_tokens"), d["scheduler"]["max_num_tokens"].get<int>());
  EXPECT_EQ(s.serving.kv_cache.block_size, d["kv_cache"]["block_size"].get<int>());
  EXPECT_DOUBLE_EQ(s.serving.kv_cache.memory_utilization, d["kv_cache"]["memory_utilization"].get<double>());
  EXPECT_TRUE(s.serving.kv_cache.free_basis);
  // The scenario's own values win; a scheduler naming another member replaces the engine's.
  j["serving"]["kv_cache"] = {{"block_size", 32}};
  j["serving"]["scheduler"] = {{"name", "sarathi"}, {"chunk_size", 1024}};
  j["serving"]["engine"]["step_overhead_us"] = 123;
  j["serving"]["engine"]["collective_hop_us"] = "auto";
  s = llmsim::test::serving_scenario(j);
  EXPECT_EQ(s.serving.kv_cache.block_size, 32);
  EXPECT_DOUBLE_EQ(s.serving.kv_cache.memory_utilization, d["kv_cache"]["memory_utilization"].get<double>());
  EXPECT_EQ(s.serving.scheduler.name, "sarathi");
  EXPECT_EQ(s.serving.scheduler.params.integer("chunk_size"), 1024);
  EXPECT_DOUBLE_EQ(s.serving.engine.step_overhead, 123e-6);
  const json fit = preset("tensorrt-llm-0.17")["fits"]["H100-SXM5-80GB"];
  EXPECT_DOUBLE_EQ(s.serving.engine.collective_hop, fit["collective_hop_us"].get<double>() * 1e-6);
}

TEST(Engine, OfflineRequestsAllArriveAtZeroWithTheirLengths) {
  const auto s = llmsim::test::serving_scenario(offline("H100-SXM5-80GB", kTrt, kWorkload));
  const auto r = llmsim::serving::make_requests(s, 1);
  ASSERT_EQ(r.size(), 5u);
  for (size_t i = 0; i < r.size(); ++i) {
    EXPECT_EQ(r[i].id, static_cast<int>(i));
    EXPECT_EQ(r[i].arrival, 0);
    EXPECT_EQ(r[i].prompt_tokens, 100);
    EXPECT_EQ(r[i].output_tokens, 7);
  }
}

class EngineCli : public llmsim::test::Cli {
 protected:
  void expect_error(const json& scenario, const std::string& prefix) {
    expect_input_error(run("run '" + write("s.json", scenario) + "' --out out"), prefix);
  }
};

TEST_F(EngineCli, BadInputNamesItsPath) {
  expect_error(offline("H100-SXM5-80GB", {{"name", "tensorrt-llm"}}, kWorkload),
               "/serving/engine/name: unknown preset \"tensorrt-llm\" (one of: tensorrt-llm-0.17, vllm-2023)");
  expect_error(offline("H100-SXM5-80GB", "tensorrt-llm", kWorkload),  // a bare name is read as {"name": ...}
               "/serving/engine/name: unknown preset \"tensorrt-llm\"");
  expect_error(offline("H100-SXM5-80GB", 7, kWorkload), "/serving/engine: expected an object");
  expect_error(offline("A100-SXM4-80GB", kTrt, kWorkload),
               "/serving/engine: the tensorrt-llm-0.17 engine has no fit on A100-SXM4-80GB (it is fitted on: ");
  json no_lengths = kWorkload;
  no_lengths.erase("input_tokens");
  expect_error(offline("H100-SXM5-80GB", kTrt, no_lengths), "/serving/workload/input_tokens: ");
  json zero = kWorkload;
  zero["output_tokens"] = 0;
  expect_error(offline("H100-SXM5-80GB", kTrt, zero), "/serving/workload/output_tokens: ");
  json a100 = offline("A100-SXM4-80GB", {{"name", "vllm-2023"}}, kWorkload);
  expect_error(a100, "/serving/precision: ");
}

}  // namespace
