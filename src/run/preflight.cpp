#include "llmsim/run/preflight.hpp"

#include <algorithm>
#include <cstdio>

#include "llmsim/hardware/compute_model.hpp"
#include "llmsim/report/trace.hpp"
#include "llmsim/serving/admission.hpp"
#include "llmsim/serving/kv_cache.hpp"
#include "llmsim/serving/scheduler.hpp"
#include "llmsim/serving/step_model.hpp"
#include "llmsim/serving/workload.hpp"
#include "llmsim/strategy/pipeline_schedule.hpp"
#include "llmsim/strategy/training_strategies.hpp"
#include "llmsim/util/error.hpp"
#include "llmsim/util/limits.hpp"
#include "llmsim/run/fault_run.hpp"
#include "llmsim/workload/build_plan.hpp"

namespace llmsim::run {

namespace {

constexpr double kGiB = 1024.0 * 1024 * 1024;

void check_network_model(const scenario::Scenario& s) {
  if (s.network.model == "ns-3")
    throw ScenarioError("/network/model", "the ns-3 packet-level model is for bench-collective with messages up to 64K; "
                                          "training and serving transfers are far too large for it (use CM02, LV08 or IB)");
}

/// The fault timeline's node-steps within limits::kMaxTimelineNodeSteps.
void check_timeline(const scenario::Scenario& s) {
  const TimelineWork work = timeline_work(s);
  if (work.total() <= limits::kMaxTimelineNodeSteps) return;
  // Name what makes most of the work: the checkpoints (their interval) or the failures (the horizon).
  const bool checkpoints = work.checkpoint_steps > work.failure_steps;
  char what[240];
  std::snprintf(what, sizeof what, "the failure timeline would be about %.2g node-steps (failures, repairs and "
                "checkpoints times %d nodes; at most %.0f); %s", work.total(), s.cluster.nodes,
                limits::kMaxTimelineNodeSteps,
                checkpoints ? "checkpoint less often or lower faults.horizon_h" : "lower faults.horizon_h");
  throw ScenarioError(checkpoints ? "/strategies/fault_tolerance/interval_h" : "/faults/horizon_h", what);
}

/// trace.json and events.csv within limits::kMaxTraceEvents, named by the field that selects the traced GPUs.
void check_trace(const scenario::Scenario& s, const workload::Workload& w) {
  if (!s.output.trace && !s.output.events_csv) return;
  const double events = report::trace_events(w, report::trace_selection(s.output));
  if (events <= limits::kMaxTraceEvents) return;
  // "auto" resolves to the first trace_max_gpus ranks: those name trace_max_gpus, any other list trace_ranks.
  const auto& ranks = s.output.trace_ranks;
  const bool auto_ranks = !ranks.empty() && ranks.back() + 1 == static_cast<int>(ranks.size()) &&
                          ranks.size() == std::min<size_t>(s.cluster.total_gpus(), s.resolved["output"]["trace_max_gpus"]);
  char what[320];
  const char* file = s.output.trace ? "trace.json" : "events.csv";
  std::snprintf(what, sizeof what, "%s would hold about %.2g events (at most %.0f, about 1.5 GB): trace fewer GPUs "
                "(output.trace_ranks, output.trace_max_gpus) or iterations (output.trace_iterations), or set %s "
                "false", file, events, limits::kMaxTraceEvents, s.output.trace ? "output.trace" : "output.events_csv");
  throw ScenarioError(auto_ranks ? "/output/trace_max_gpus" : "/output/trace_ranks", what);
}

void check_training(const scenario::Scenario& s, Preflight& p) {
  const hardware::ComputeModel cm(s.hardware);
  const auto plan = workload::build_plan(s, cm, strategy::build_training_strategies(s));
  check_trace(s, plan.workload);
  for (const auto& wk : plan.workload.workers) p.ops += static_cast<double>(wk.ops.size());
  for (const auto& st : plan.stages) p.peak_memory = std::max(p.peak_memory, st.memory.total());
  p.fits = p.peak_memory <= p.memory_capacity;
  if (!p.fits && s.faults.enabled()) {
    char what[160];
    std::snprintf(what, sizeof what, "the failure-free job does not fit in memory (peak %.1f GiB of %.1f GiB per GPU)",
                  p.peak_memory / kGiB, p.memory_capacity / kGiB);
    throw ScenarioError("/faults", std::string(what) + ": there is nothing to fail (raise tp or pp, lower "
                                                       "training.micro_batch, or set training.recompute to full)");
  }
  if (s.faults.enabled()) check_timeline(s);
}

/// Every request arrives at a finite time within limits::kMaxArrival_s (a tiny rate or a huge trace timestamp).
void check_arrivals(const scenario::Scenario& s, const std::vector<serving::Request>& requests) {
  for (const auto& r : requests)
    if (!(r.arrival <= limits::kMaxArrival_s))
      throw ScenarioError("/serving/workload", "request " + std::to_string(r.id) + " arrives at " + plain_number(r.arrival) +
                                                   " s (after serving.rate_scale " + plain_number(s.serving.rate_scale) +
                                                   "); at most " + plain_number(limits::kMaxArrival_s) +
                                                   " s: raise the request rate, or bound the run with "
                                                   "serving.duration_s or serving.max_requests");
}

/// The capacity search probes rate_scale from 1/max_scale to max_scale: its slowest probe must still see a request
/// within the run, and its fastest one's arrivals the same limits as the run's own.
void check_capacity_probes(const scenario::Scenario& s) {
  const double max = s.serving.capacity_max_scale;
  for (const double scale : {1 / max, max}) {
    scenario::Scenario probe = s;
    probe.serving.rate_scale = scale;
    try {
      check_arrivals(probe, serving::make_requests(probe, scale));
    } catch (const ScenarioError& e) {
      throw ScenarioError("/serving/capacity_search/max_scale",
                          "its probe at rate_scale " + plain_number(scale) + " fails: " + e.path() + ": " + e.message() +
                              " (lower max_scale, or raise serving.duration_s)");
    }
  }
}

void check_serving(const scenario::Scenario& s, const std::vector<serving::Request>& requests, Preflight& p) {
  check_arrivals(s, requests);
  if (s.serving.capacity_search) check_capacity_probes(s);
  const serving::StepModel model(s);
  const auto kv = serving::replica_kv(s);
  serving::admit(s, requests, kv);  // some request is served
  p.peak_memory = kv.weight_bytes + kv.activation_bytes + kv.blocks * kv.block_bytes;
}

}  // namespace

std::string Preflight::describe() const {
  char buf[200];
  WorkEstimate shown = estimate;
  if (ops > 0) shown.ops = ops;  // the plan's own count
  // A plan that does not fit is never simulated: it has no ops to count.
  const std::string work = fits ? describe_work(shown) : std::to_string(static_cast<long long>(shown.gpus)) + " GPUs";
  std::snprintf(buf, sizeof buf, "%s; peak memory %.1f of %.1f GiB per GPU%s", work.c_str(), peak_memory / kGiB,
                memory_capacity / kGiB, fits ? "" : ": does not fit, a run reports status oom");
  return buf;
}

Preflight preflight(const scenario::Scenario& s) {
  Preflight p;
  check_network_model(s);
  p.memory_capacity = s.hardware.memory_bytes;
  if (s.kind != "serving") {
    p.estimate = estimate_work(s);
    check_work(p.estimate);
    check_training(s, p);
    return p;
  }
  if (s.serving.max_requests > limits::kMaxRequests) check_work(estimate_work(s));  // refused before generating
  const auto requests = serving::make_requests(s, s.serving.rate_scale);  // once for both checks
  p.estimate = estimate_serving_work(s, requests);
  check_work(p.estimate);
  check_serving(s, requests, p);
  return p;
}

}  // namespace llmsim::run
