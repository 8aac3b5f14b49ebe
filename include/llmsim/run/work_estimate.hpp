#pragma once
// How big a run is, from the scenario alone, before anything is built: the ops the engine executes, the network
// flows it starts, the serving requests, and the memory the simulation needs for them. Runs over the limits in
// util/limits.hpp are refused with the field to change, so that a mistyped 1e9 never grows a process until the
// machine runs out of memory.
//
// Training ops: the ops of one iteration are a + b m in the micro-batches per pipeline m (a: gradient buckets and
// the optimizer, b: each micro-batch's passes), so two small plans of the same scenario (m1 and 2 m1 micro-batches,
// one iteration) give them, and the estimate is iterations (a + b m) — exact for every schedule and MoE pipeline
// whose per-micro-batch ops do not depend on m. Before those plans are built, a lower bound (6 ops per worker,
// micro-batch and chunk, 2 per gradient bucket of 2-byte gradients) refuses what is far too large. Flows: two pipeline transfers per worker, micro-batch and
// chunk, plus per MoE layer an all-to-all of ep flows each way, plus 2 (dp - 1) ring steps per worker and
// iteration for the gradient all-reduce. Serving: one record per request and about one step per 16 output tokens
// of each request (a lower bound of the steps for batches above 16). Memory: the constants of util/limits.hpp.
#include <string>
#include <vector>

#include "llmsim/scenario/scenario.hpp"
#include "llmsim/serving/workload.hpp"

namespace llmsim::run {

struct WorkEstimate {
  double gpus = 0;
  double ops = 0;       ///< training ops, all workers, all iterations
  double collective_ops = 0;  ///< of those, collectives' starts and waits (limits::kBytesPerCollectiveOp each)
  double flows = 0;     ///< network flows the run starts
  double requests = 0;  ///< serving requests
  double memory = 0;    ///< [bytes] the simulation needs for them
  std::string field;    ///< the JSON path that drives the size most ("/training/global_batch", "/cluster/nodes")
};

/// The estimate of `s`; serving: generates its requests (unless serving.max_requests alone is over the limit).
WorkEstimate estimate_work(const scenario::Scenario& s);
/// Serving, with the requests the run will serve (serving::make_requests), so they are generated once.
WorkEstimate estimate_serving_work(const scenario::Scenario& s, const std::vector<serving::Request>& requests);

/// "2048 GPUs, about 3.1e+06 ops, 2.2e+06 flows, at most 0.6 GiB of simulator memory" (steps and requests for
/// serving).
std::string describe_work(const WorkEstimate& e);

/// Throws ScenarioError at `e.field` when `e` is over a limit of util/limits.hpp: "the run would be 2.1e+09 ops
/// and about 96 GiB of memory; at most 2e+08 ops and 8 GiB (lower training.global_batch ...)".
void check_work(const WorkEstimate& e);

}  // namespace llmsim::run
