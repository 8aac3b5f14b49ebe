#pragma once
// A serving scenario for unit tests: Llama-2-70B-class replicas on one 8-GPU node of `hardware`, fp16, one
// fixed-length Poisson request (replace the serving section's fields as needed).
#include <nlohmann/json.hpp>
#include <string>

#include "llmsim/scenario/loader.hpp"

namespace llmsim::test {

inline nlohmann::json serving_json(const std::string& hardware, int tp, const std::string& model = "llama2-70b") {
  return {{"name", "t"},
          {"kind", "serving"},
          {"hardware", hardware},
          {"cluster", {{"preset", "selene"}, {"nodes", 1}}},
          {"model", model},
          {"parallelism", {{"tp", tp}, {"pp", 1}}},
          {"serving",
           {{"precision", "fp16"},
            {"max_requests", 1},
            {"workload",
             {{"name", "poisson"},
              {"rate_rps", 1.0},
              {"prompt", {{"distribution", "fixed"}, {"tokens", 512}}},
              {"output", {{"distribution", "fixed"}, {"tokens", 16}}}}}}}};
}

inline scenario::Scenario serving_scenario(const nlohmann::json& j) { return scenario::resolve(j, "."); }

}  // namespace llmsim::test
