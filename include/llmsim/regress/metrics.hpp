#pragma once
// The metrics `llmsim regress` guards: the throughput and latency numbers of a run's summary.json, per kind of
// run. A metric's name is its dotted path in summary.json ("serving.ttft_s.p99"); its direction says which way
// is better. wall_time_s is never a metric: a metric is deterministic (same binary, same scenario -> same value).
//
//   training  iteration_time_s (s, lower), tokens_per_s (higher), model_tflops_per_gpu and
//             hardware_tflops_per_gpu (TFLOP/s per GPU, higher); with a "moe" section also moe.c_t (token copies
//             sent per token, lower) and moe.imbalance (most loaded device over the mean, lower)
//   faults    (a "faults" section) iteration_time_s (failure-free, lower), faults.effective_tokens_per_s (higher),
//             faults.throughput_drop (fraction of the failure-free throughput lost, lower)
//   serving   ("kind": "serving") serving.ttft_s.p99 and serving.tpot_s.p99 (s, lower),
//             serving.throughput.output_tokens_per_s (higher), serving.slo.attainment (fraction, higher)
#include <map>
#include <nlohmann/json.hpp>
#include <string>

namespace llmsim::regress {

enum class Better { Lower, Higher };

/// Metric name -> value.
using Metrics = std::map<std::string, double>;

/// The metrics of one summary.json, by its kind. A metric the summary lacks or holds as a non-number (a run
/// that ended "oom" has no iteration time) is left out, so it shows up as missing against a baseline.
Metrics extract_metrics(const nlohmann::json& summary);

/// Which way metric `name` improves; false if `name` is not a metric regress extracts.
bool direction_of(const std::string& name, Better& better);

/// Every metric name regress extracts, comma-separated in the order above (for errors).
std::string metric_names();

}  // namespace llmsim::regress
