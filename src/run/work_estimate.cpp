#include "llmsim/run/work_estimate.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "llmsim/serving/workload.hpp"
#include "llmsim/strategy/pipeline_schedule.hpp"
#include "llmsim/util/error.hpp"
#include "llmsim/util/limits.hpp"

namespace llmsim::run {

namespace {

std::string sci(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, v < 1e5 ? "%.0f" : "%.2g", v);
  return buf;
}

std::string gib(double bytes) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f GiB", bytes / (1024.0 * 1024 * 1024));
  return buf;
}

WorkEstimate training_work(const scenario::Scenario& s, double gpus) {
  WorkEstimate e;
  e.gpus = gpus;
  const auto& p = s.parallelism;
  const double workers = e.gpus / p.tp;
  const double iterations = s.training.iterations;
  const double m = s.kind == "moe-chiplet" ? 1.0 : std::max(1, s.training.micro_batches_per_pipeline(p.dp));
  const double v = s.kind == "moe-chiplet" ? 1.0 : strategy::make_pipeline_schedule(s)->chunks_per_stage();
  int moe_layers = 0;
  for (int l = 0; l < s.model.layers; ++l) moe_layers += s.model.moe.is_moe_layer(l) ? 1 : 0;
  const double moe_per_chunk = double(moe_layers) / (p.pp * v);
  const double passes = workers * iterations * m * v;  // (micro-batch, chunk) pairs run by all workers
  e.ops = passes * (6 + 6 * moe_per_chunk);
  e.flows = passes * (2 + 2 * moe_per_chunk * p.ep) + workers * iterations * 2 * (p.dp - 1);
  // What dominates: micro-batches (global_batch), iterations, or the cluster.
  const double by_batch = m * v, by_cluster = workers;
  e.field = iterations >= std::max(by_batch, by_cluster) ? "/training/iterations"
            : by_batch >= by_cluster                     ? "/training/global_batch"
                                                         : "/cluster/nodes";
  return e;
}

WorkEstimate serving_work(const scenario::Scenario& s) {
  WorkEstimate e;
  const auto requests = serving::make_requests(s, s.serving.rate_scale);
  e.requests = static_cast<double>(requests.size());
  double output_tokens = 0;
  for (const auto& r : requests) output_tokens += r.output_tokens;
  e.ops = output_tokens / 16;  // steps: at least one per 16 output tokens of a batch
  e.flows = s.serving.prefill_replicas > 0 ? e.requests * s.parallelism.tp * s.parallelism.pp : 0;
  e.field = s.serving.max_requests > 0 ? "/serving/max_requests" : "/serving/duration_s";
  return e;
}

}  // namespace

WorkEstimate estimate_work(const scenario::Scenario& s) {
  const double gpus = static_cast<double>(s.cluster.total_gpus());
  WorkEstimate e = s.kind == "serving" ? serving_work(s) : training_work(s, gpus);
  e.gpus = gpus;
  e.memory = e.ops * limits::kBytesPerOp + e.flows * limits::kBytesPerFlow + gpus * limits::kBytesPerGpu +
             e.requests * limits::kBytesPerRequest;
  return e;
}

std::string describe_work(const WorkEstimate& e) {
  return sci(e.gpus) + " GPUs, about " + sci(e.ops) + (e.requests > 0 ? " steps, " + sci(e.requests) + " requests"
                                                                        : " ops, " + sci(e.flows) + " flows");
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
                                 " requests and " + gib(limits::kMaxSimulationBytes) + "; lower " +
                                 shown + ")");
}

}  // namespace llmsim::run
