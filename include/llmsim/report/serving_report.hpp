#pragma once
// Outputs of a serving run (run/serving_run.hpp).
//   summary.json   "serving": requests (of the workload), admission (serving/admission.hpp: served, rejected
//                  for the context or the KV cache, truncated prompts, outputs capped at the context, the policy
//                  and max_seq_len), TTFT / TPOT / end-to-end latency of the served requests (mean, p50, p90, p99
//                  [s]), throughput (served requests/s, output and total tokens/s over [first arrival, last
//                  completion], and output tokens/s of each replica over the same span; with the offline
//                  workload, all arriving at 0, these are the benchmark's offline throughput), SLO attainment (share of all requests served with TTFT <= slo.ttft_ms and TPOT <=
//                  slo.tpot_ms; a one-token request meets any TPOT; a rejected one meets none) and goodput (those
//                  requests per second, DistServe's definition), KV cache (blocks per
//                  replica, bytes per token, weights and activations per GPU, time-weighted mean and peak use),
//                  batch sizes (sequences per step: mean, p50, p99, max, histogram), preemptions, steps, and with
//                  disaggregation the KV transfer times
//   requests.csv   one row per request: arrival, first token, finish, ttft, tpot, e2e [s], prompt and output tokens
//                  as served, replica, prefill replica, preemptions, kv transfer [s], status (served, truncated,
//                  rejected-context, rejected-kv-cache), the workload's prompt and output tokens; a rejected
//                  request has empty time and replica cells
//   kv_usage.csv   per serving.sample_s bucket and replica: time-weighted KV use (fraction of blocks), running and
//                  waiting sequences at the bucket's last step
//   trace.json     Chrome/Perfetto: one track per replica, one slice per step (the first serving.trace_max_steps
//                  starting inside [serving.trace_from_s, serving.trace_to_s))
// TPOT of a request = (finish - first token) / (output tokens - 1), for requests of at least 2 output tokens.
// Percentiles interpolate linearly between order statistics (numpy's default).
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "llmsim/scenario/scenario.hpp"
#include "llmsim/serving/simulation.hpp"

namespace llmsim::report {

/// Percentile q in [0, 100] of `v` (sorted in place); 0 for an empty vector.
double percentile(std::vector<double>& v, double q);

nlohmann::json serving_summary(const scenario::Scenario& s, const serving::ServingResult& r, double wall_seconds);
std::string serving_summary_table(const nlohmann::json& summary);
// The files are written to `out` row by row and event by event: no document of them is held in memory.
void write_requests_csv(std::ostream& out, const serving::ServingResult& r);
void write_kv_usage_csv(std::ostream& out, const serving::ServingResult& r, double sample);
/// The batches of each replica that start in [sv.trace_from, sv.trace_to) (trace_to 0: no end), at most
/// sv.trace_max_steps per replica.
void write_serving_trace(std::ostream& out, const serving::ServingResult& r, const scenario::Serving& sv);

}  // namespace llmsim::report
