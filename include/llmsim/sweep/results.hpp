#pragma once
// The results table of a sweep: DIR/results.csv and DIR/results.jsonl, one row per point in index order.
// Columns: point (its id), the varied keys (the values as --set parsed them), status (ok, invalid, failed,
// or pending: no marker yet), error (invalid/failed: the run's message), then metrics from the point's
// summary.json, each named by its dotted path there (an array, e.g. peak_memory_bytes per stage, gives its
// maximum; summary.json's own "status", ok or oom, is the column summary_status):
//   training  summary_status, iteration_time_s, tokens_per_s, model_tflops_per_gpu, hardware_tflops_per_gpu, mfu,
//             hfu, pipeline_bubble_fraction, exposed_comm_time_s, peak_memory_bytes, hbm_bytes, parallelism.dp,
//             parallelism.micro_batches, time_breakdown_s.<category>, simulated_events,
//             moe.c_t, moe.imbalance, moe.imbalance_max, moe.all_to_all_bytes_per_iteration
//   faults    faults.failures, faults.failure_free_tokens_per_s, faults.effective_tokens_per_s,
//             faults.throughput_drop, faults.lost_iterations, faults.lost_gpu_hours, faults.stall_h,
//             faults.checkpoints
//   serving   serving.requests, serving.makespan_s, serving.ttft_s.{mean,p50,p90,p99}, serving.tpot_s.{...},
//             serving.e2e_s.{mean,p50,p99}, serving.throughput.{requests_per_s,output_tokens_per_s,
//             total_tokens_per_s}, serving.slo.{attainment,goodput_requests_per_s},
//             serving.kv_cache.{mean,peak}_utilization, serving.batch_size.mean, serving.preemptions
//   always    wall_time_s (the only column that is not deterministic)
// Only metric columns with a value in some row appear (a training sweep has no serving columns); a metric
// named like a varied key is left out (the key's column holds it). Missing cells are empty in CSV, null in JSONL.
#include <optional>

#include "llmsim/sweep/plan.hpp"

namespace llmsim::sweep {

struct Tally {
  size_t ok = 0, invalid = 0, failed = 0, pending = 0;
};

/// Reads the plan, the markers and the summaries of `dir` and writes both tables (atomically). A point marked ok
/// whose summary.json is missing or unreadable is reported failed (a rerun of the sweep redoes it).
Tally collect(const SweepDir& dir);

/// The point's summary.json, or nothing when it is missing or not JSON.
std::optional<nlohmann::json> read_summary(const SweepDir& dir, const std::string& id);

}  // namespace llmsim::sweep
