#pragma once
// A trtllm-bench throughput row as a serving scenario (as tools/calibrate_trtllm.py builds it): `requests` requests
// of isl/osl tokens at time 0 on one replica of tp GPUs, FP8 weights and KV cache, the tensorrt-llm-0.17 engine.
#include <map>
#include <nlohmann/json.hpp>
#include <string>

namespace llmsim::test {

/// `model` as the table names it ("LLaMA v3.1 70B", "Mixtral 8x7B", ...); `gpu` "H100" or "H200".
inline nlohmann::json trtllm_bench_json(const std::string& model, const std::string& gpu, int tp, int isl, int osl,
                                        long requests) {
  static const std::map<std::string, std::string> kModels = {
      {"LLaMA v3.1 8B", "llama3.1-8b"}, {"LLaMA v3.1 70B", "llama3.1-70b"}, {"LLaMA v3.1 405B", "llama3.1-405b"},
      {"Mistral 7B", "mistral-7b"},     {"Mixtral 8x7B", "mixtral-8x7b"},   {"Mixtral 8x22B", "mixtral-8x22b"}};
  return {{"name", "trtllm"},
          {"kind", "serving"},
          {"hardware", gpu == "H100" ? "H100-SXM5-80GB" : "H200"},
          {"cluster", {{"preset", "dgx-h100-superpod"}, {"nodes", 1}, {"gpus_per_node", tp}}},
          {"model", kModels.at(model)},
          {"parallelism", {{"tp", tp}, {"pp", 1}, {"dp", 1}}},
          {"serving",
           {{"precision", "fp8"},
            {"engine", {{"name", "tensorrt-llm-0.17"}}},
            {"workload",
             {{"name", "offline"}, {"requests", requests}, {"input_tokens", isl}, {"output_tokens", osl}}}}},
          {"output", {{"trace", false}}}};
}

}  // namespace llmsim::test
