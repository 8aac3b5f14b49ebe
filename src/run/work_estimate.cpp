#include "llmsim/run/work_estimate.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <variant>

#include "llmsim/hardware/compute_model.hpp"
#include "llmsim/model/moe.hpp"
#include "llmsim/model/transformer.hpp"
#include "llmsim/serving/workload.hpp"
#include "llmsim/strategy/pipeline_schedule.hpp"
#include "llmsim/strategy/training_strategies.hpp"
#include "llmsim/util/error.hpp"
#include "llmsim/util/limits.hpp"
#include "llmsim/workload/build_plan.hpp"

namespace llmsim::run {

namespace {

std::string sci(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, v < 1e5 ? "%.0f" : "%.2g", v);
  return buf;
}

/// The simulation's memory for `e` on `gpus` GPUs (util/limits.hpp): collective ops are the heavier.
double memory_of(const WorkEstimate& e, double gpus) {
  const double collective = std::min(e.collective_ops, e.ops);
  return (e.ops - collective) * limits::kBytesPerOp + collective * limits::kBytesPerCollectiveOp +
         gpus * limits::kBytesPerGpu + e.requests * limits::kBytesPerRequest;
}

std::string gib(double bytes) {
  char buf[32];
  const double g = bytes / (1024.0 * 1024 * 1024);
  if (g < 1)
    std::snprintf(buf, sizeof buf, "%.0f MiB", std::max(1.0, std::ceil(g * 1024)));
  else
    std::snprintf(buf, sizeof buf, g < 1e6 ? "%.1f GiB" : "%.3g GiB", g);
  return buf;
}

/// Ops of a plan: all of them, and the collectives' starts and waits among them (the heavier ones).
struct OpCount {
  double all = 0, collective = 0;
};

/// Ops of the plan of `s` (all workers) with `m` micro-batches per pipeline (0: as `s` has) and one iteration.
OpCount plan_ops(scenario::Scenario s, int m) {
  if (m > 0) s.training.global_batch = m * s.training.micro_batch * s.parallelism.dp;
  s.training.iterations = 1;
  const hardware::ComputeModel cm(s.hardware);
  const auto plan = workload::build_plan(s, cm, strategy::build_training_strategies(s));
  OpCount n;
  for (const auto& wk : plan.workload.workers)
    for (const auto& op : wk.ops) {
      ++n.all;
      if (std::holds_alternative<workload::CollectiveStartOp>(op) || std::holds_alternative<workload::CollectiveWaitOp>(op))
        ++n.collective;
    }
  return n;
}

/// Ops of one iteration: the plan's ops are a + b m in the micro-batches m (a: buckets, optimizer), so two small
/// plans (m1 and 2 m1 micro-batches, m1 the smallest multiple of pp the schedule runs with) give a and b.
OpCount iteration_ops(const scenario::Scenario& s, const strategy::PipelineSchedule& schedule, int m) {
  const int pp = s.parallelism.pp;
  const int m1 = pp * ((std::max(schedule.min_micro_batches(pp), pp) + pp - 1) / pp);
  if (s.kind == "moe-chiplet") return plan_ops(s, 0);
  if (m <= 2 * m1) return plan_ops(s, m);
  const OpCount o1 = plan_ops(s, m1), o2 = plan_ops(s, 2 * m1);
  const auto at = [&](double a1, double a2) { return (2 * a1 - a2) + (a2 - a1) / m1 * m; };
  return {at(o1.all, o2.all), at(o1.collective, o2.collective)};
}

WorkEstimate training_work(const scenario::Scenario& s, double gpus) {
  WorkEstimate e;
  e.gpus = gpus;
  const auto& p = s.parallelism;
  const double workers = gpus / p.tp, iterations = s.training.iterations;
  // A moe-chiplet system runs every micro-batch through every layer, one pass per (micro-batch, layer).
  const bool chiplet = s.kind == "moe-chiplet";
  const int m = std::max(1, chiplet ? s.training.global_batch / s.training.micro_batch
                                    : s.training.micro_batches_per_pipeline(p.dp));
  const auto schedule = strategy::make_pipeline_schedule(s);
  const double v = chiplet ? s.model.layers : schedule->chunks_per_stage();
  int moe_layers = 0;
  for (int l = 0; l < s.model.transformer_layers(); ++l) moe_layers += s.model.moe.is_moe_layer(l) ? 1 : 0;
  const double moe_per_chunk = double(moe_layers) / (p.pp * v);
  const double passes = workers * iterations * m * v;  // (micro-batch, chunk) pairs run by all workers
  // At least a compute, a send and a receive per pass and direction, and a start and a wait per gradient bucket
  // (2-byte gradients at the least): too many of those and no plan is built.
  // A worker's parameters: the dense ones split over tp x pp, a MoE layer's routed experts over ep as well.
  const double routed = moe_layers * s.model.moe.experts * model::ffn_params(s.model, s.model.moe.expert_ffn_hidden);
  const double per_worker = (model::model_params(s.model) - routed + routed / p.ep) / (p.tp * p.pp);
  const double buckets = std::ceil(per_worker * 2 / s.training.grad_bucket_bytes);
  const bool synced = p.dp * p.cp > 1;  // a gradient collective per bucket only where replicas reduce
  e.collective_ops = synced ? workers * iterations * 2 * buckets : 0;  // a start and a wait per bucket
  e.ops = passes * 6 + e.collective_ops;
  // A flow per worker at least for each bucket's reduction (a ring step carries an edge's bytes at once).
  e.flows = passes * (2 + 2 * moe_per_chunk * p.ep) + e.collective_ops / 2;
  const double by_batch = double(m) * v, by_cluster = workers;  // what dominates the size
  e.field = e.collective_ops > passes * 6                               ? "/training/grad_bucket_MB"
            : iterations >= std::max(by_batch, by_cluster)          ? "/training/iterations"
            : by_batch >= by_cluster                                 ? "/training/global_batch"
                                                                     : "/cluster/nodes";
  if (e.gpus <= limits::kMaxGpus && e.ops <= limits::kMaxOps && memory_of(e, gpus) <= limits::kMaxSimulationBytes) {
    const OpCount n = iteration_ops(s, *schedule, m);
    e.ops = iterations * n.all;
    e.collective_ops = iterations * n.collective;
  }
  return e;
}

WorkEstimate serving_work(const scenario::Scenario& s, const std::vector<serving::Request>& requests) {
  WorkEstimate e;
  e.requests = static_cast<double>(requests.size());
  double output_tokens = 0;
  for (const auto& r : requests) output_tokens += r.output_tokens;
  e.ops = output_tokens / 16;  // steps: at least one per 16 output tokens of a batch
  e.flows = s.serving.prefill_replicas > 0 ? e.requests * s.parallelism.tp * s.parallelism.pp : 0;
  // What bounds the work: max_requests, else an offline run's own requests and lengths, else the duration.
  e.field = s.serving.max_requests > 0              ? "/serving/max_requests"
            : s.serving.workload.name == "offline" ? "/serving/workload"
                                                    : "/serving/duration_s";
  return e;
}

WorkEstimate with_memory(WorkEstimate e, double gpus) {
  e.gpus = gpus;
  e.memory = memory_of(e, gpus);
  return e;
}

}  // namespace

WorkEstimate estimate_work(const scenario::Scenario& s) {
  const double gpus = static_cast<double>(s.cluster.total_gpus());
  if (s.kind != "serving") return with_memory(training_work(s, gpus), gpus);
  if (s.serving.max_requests > limits::kMaxRequests) {  // too many, whatever the trace holds: not generated
    WorkEstimate e;
    e.requests = static_cast<double>(s.serving.max_requests);
    e.field = "/serving/max_requests";
    return with_memory(e, gpus);
  }
  return estimate_serving_work(s, serving::make_requests(s, s.serving.rate_scale));
}

WorkEstimate estimate_serving_work(const scenario::Scenario& s, const std::vector<serving::Request>& requests) {
  return with_memory(serving_work(s, requests), static_cast<double>(s.cluster.total_gpus()));
}

std::string describe_work(const WorkEstimate& e) {
  return sci(e.gpus) + " GPUs, about " + sci(e.ops) +
         (e.requests > 0 ? " steps, " + sci(e.requests) + " requests" : " ops, " + sci(e.flows) + " flows") +
         ", at most " + gib(e.memory) + " of simulator memory";
}

void check_work(const WorkEstimate& e) {
  const bool over = e.gpus > limits::kMaxGpus || e.ops > limits::kMaxOps || e.flows > limits::kMaxFlows ||
                    e.requests > limits::kMaxRequests || e.memory > limits::kMaxSimulationBytes;
  if (!over) return;
  const std::string field = e.gpus > limits::kMaxGpus ? "/cluster/nodes" : e.field;
  const std::string requests = e.requests > 0 ? ", " + sci(e.requests) + " requests" : "";
  std::string shown = field.substr(1);  // "training.global_batch"
  std::replace(shown.begin(), shown.end(), '/', '.');
  throw ScenarioError(field, "the run would be " + sci(e.gpus) + " GPUs, " + sci(e.ops) + " ops, " + sci(e.flows) +
                                 " flows" + requests + " and about " + gib(e.memory) + " of memory (at most " +
                                 plain_number(limits::kMaxGpus) + " GPUs, " + plain_number(limits::kMaxOps) + " ops, " +
                                 plain_number(limits::kMaxFlows) + " flows, " + plain_number(limits::kMaxRequests) +
                                 " requests and " + gib(limits::kMaxSimulationBytes) + "; " +
                                 (field == "/training/grad_bucket_MB" ? "raise " : "lower ") + shown + ")");
}

}  // namespace llmsim::run
