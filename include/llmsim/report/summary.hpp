#pragma once
// summary.json of a training run and its stdout table.
//   iteration_time_s          mean over iterations of (end of iteration i) - (end of iteration i-1)
//   tokens_per_s              global_batch * seq_len / iteration_time_s
//   model_tflops_per_gpu      3x forward FLOPs (no recomputation) / (iteration_time * gpus)
//   hardware_tflops_per_gpu   FLOPs executed (recomputation included; Megatron eq. 3 with full
//                             recomputation) / (iteration_time * gpus)
//   mfu, hfu                  the two above over the dense peak of the training precision
//   pipeline_bubble_fraction  mean over GPUs of idle time / iteration time (idle = waiting for a pipeline
//                             neighbour before it sent, i.e. neither computing nor communicating)
//   exposed_comm_time_s       mean over GPUs of tp + pp + dp + ep communication on the compute stream per iteration
//   time_breakdown_s          mean per GPU per iteration by category (sums to iteration_time_s)
//   time_breakdown_by_stage_s per pipeline stage, the same over its GPUs ("stage": index): which stage waits
//   parallelism               the run's tp/pp/dp/cp/ep, schedule, micro-batches and whether its pipeline sends
//                             were overlapped (overlap_p2p_comm as applied: only interleaved-1f1b with v > 1)
//   peak_memory_bytes         per pipeline stage (workload/memory.hpp); status "oom" if any exceeds HBM
//   links                     link statistics (links.csv has every link): bytes, mean and peak utilisation
//   moe                       MoE models only: routing and placement metrics (report/moe_report.hpp)
// Everything is deterministic except wall_time_s.
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "llmsim/report/recorder.hpp"
#include "llmsim/scenario/scenario.hpp"
#include "llmsim/workload/training.hpp"

namespace llmsim::report {

/// `rec` is absent when the run was not simulated (status "oom").
nlohmann::json training_summary(const scenario::Scenario& s, const workload::TrainingPlan& plan,
                                 const Recorder* rec, double wall_time_s);

/// summary.json "links": link count, links used, total bytes and the five hottest (peak, then bytes).
nlohmann::json links_summary(const std::vector<engine::LinkStat>& links);
/// links.csv: one row per link direction (name, bandwidth, bytes, mean and peak utilisation).
std::string links_csv(const std::vector<engine::LinkStat>& links);

/// Human-readable table of a summary (for stdout).
std::string summary_table(const nlohmann::json& summary);

}  // namespace llmsim::report
