#pragma once
// How big a run is, from the scenario alone, before anything is built: the ops the engine executes, the network
// flows it starts, the serving requests, and the memory the simulation needs for them. Runs over the limits in
// util/limits.hpp are refused with the field to change, so that a mistyped 1e9 never grows a process until the
// machine runs out of memory.
//
// Training ops: every worker (tp group) runs, per iteration and per micro-batch and model chunk, a forward and a
// backward (compute, pipeline recv and send: 6 ops), plus 6 all-to-all ops per MoE layer of its chunk; flows: two
// pipeline transfers per worker, micro-batch and chunk, plus 2 (dp - 1) ring steps per dp group member and
// iteration for the gradient all-reduce. Serving: one record per request and about one step per 16 output
// tokens of each request (a lower bound of the steps for batches above 16). Memory: the constants below, measured
// on llmsim's own data structures (docs/decisions.md, "Limits").
#include <string>

#include "llmsim/scenario/scenario.hpp"

namespace llmsim::run {

struct WorkEstimate {
  double gpus = 0;
  double ops = 0;       ///< training ops, all workers, all iterations
  double flows = 0;     ///< network flows the run starts
  double requests = 0;  ///< serving requests
  double memory = 0;    ///< [bytes] the simulation needs for them
  std::string field;    ///< the JSON path that drives the size most ("/training/global_batch", "/cluster/nodes")
};

WorkEstimate estimate_work(const scenario::Scenario& s);

/// "2048 GPUs, about 3.1e+06 ops, 2.2e+06 flows" (requests for serving).
std::string describe_work(const WorkEstimate& e);

/// Throws ScenarioError at `e.field` when `e` is over a limit of util/limits.hpp: "the run would be 2.1e+09 ops
/// and about 96 GiB of memory; at most 2e+08 ops and 8 GiB (lower training.global_batch ...)".
void check_work(const WorkEstimate& e);

}  // namespace llmsim::run
