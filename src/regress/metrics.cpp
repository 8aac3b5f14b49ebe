#include "llmsim/regress/metrics.hpp"

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

namespace llmsim::regress {

namespace {

struct Spec {
  const char* name;
  Better better;
};

const std::vector<Spec> kTraining = {{"iteration_time_s", Better::Lower},
                                     {"tokens_per_s", Better::Higher},
                                     {"model_tflops_per_gpu", Better::Higher},
                                     {"hardware_tflops_per_gpu", Better::Higher}};
const std::vector<Spec> kMoe = {{"moe.c_t", Better::Lower}, {"moe.imbalance", Better::Lower}};
const std::vector<Spec> kFaults = {{"iteration_time_s", Better::Lower},
                                   {"faults.effective_tokens_per_s", Better::Higher},
                                   {"faults.throughput_drop", Better::Lower}};
const std::vector<Spec> kServing = {{"serving.ttft_s.p99", Better::Lower},
                                    {"serving.tpot_s.p99", Better::Lower},
                                    {"serving.throughput.output_tokens_per_s", Better::Higher},
                                    {"serving.slo.attainment", Better::Higher}};

/// "a.b.c" -> "/a/b/c"
nlohmann::json::json_pointer pointer(const std::string& dotted) {
  std::string p = "/" + dotted;
  for (char& c : p)
    if (c == '.') c = '/';
  return nlohmann::json::json_pointer(p);
}

void add(const nlohmann::json& summary, const std::vector<Spec>& specs, Metrics& out) {
  for (const auto& s : specs) {
    const auto p = pointer(s.name);
    if (!summary.contains(p)) continue;
    const auto& v = summary.at(p);
    if (v.is_number() && std::isfinite(v.get<double>())) out[s.name] = v.get<double>();
  }
}

}  // namespace

Metrics extract_metrics(const nlohmann::json& summary) {
  Metrics m;
  if (summary.value("kind", "") == "serving") {
    add(summary, kServing, m);
  } else if (summary.contains("faults") && summary["faults"].is_object()) {
    add(summary, kFaults, m);
  } else {
    add(summary, kTraining, m);
  }
  if (summary.contains("moe") && summary["moe"].is_object()) add(summary, kMoe, m);
  return m;
}

bool direction_of(const std::string& name, Better& better) {
  for (const auto* specs : {&kTraining, &kMoe, &kFaults, &kServing})
    for (const auto& s : *specs)
      if (name == s.name) {
        better = s.better;
        return true;
      }
  return false;
}

std::string metric_names() {
  std::vector<std::string> names;
  for (const auto* specs : {&kTraining, &kMoe, &kFaults, &kServing})
    for (const auto& s : *specs)
      if (std::find(names.begin(), names.end(), s.name) == names.end()) names.push_back(s.name);
  std::string out;
  for (const auto& n : names) out += (out.empty() ? "" : ", ") + n;
  return out;
}

}  // namespace llmsim::regress
