#pragma once
// A serving run on SimGrid: parallelism.dp replicas of tp x pp GPUs on the cluster platform (GPU g = replica
// r * tp * pp + stage * tp + lane), a front end that routes each request at its arrival, one actor per replica
// that runs its scheduler's batches (a step is a sleep of the step model's duration), and, with disaggregation
// (serving.prefill_replicas > 0), one transfer per prefilled request that sends its KV cache from the prefill
// replica's GPUs to the decode replica's over the simulated network (flows share links with every other transfer;
// each pp stage sends its layers' share, each tp GPU its heads' share). The decode replica is chosen by the
// router when the prefill ends; the prefill replica frees the blocks when the transfer has arrived.
// SimGrid's engine is a process-wide singleton: simulate_serving may be called once per process.
#include <vector>

#include "llmsim/serving/admission.hpp"
#include "llmsim/serving/replica.hpp"
#include "llmsim/serving/request.hpp"
#include "llmsim/scenario/scenario.hpp"

namespace llmsim::serving {

struct RequestRecord {
  int id = 0;
  double arrival = 0, first_token = -1, finished = -1;  ///< [s]; -1 when not served
  Status status = Status::Served;                       ///< admission.hpp
  int prompt_tokens = 0, output_tokens = 0;             ///< as served (the request's when rejected)
  int requested_prompt_tokens = 0, requested_output_tokens = 0;  ///< the workload's
  int replica = -1;          ///< the replica that produced the output (the decode replica when disaggregated)
  int prefill_replica = -1;  ///< the replica that ran the prefill
  int preemptions = 0;
  double kv_transfer = 0;    ///< [s] sending the KV cache between replicas (disaggregation)
};

struct ServingResult {
  std::vector<RequestRecord> requests;         ///< by id
  std::vector<std::vector<StepRecord>> steps;  ///< per replica
  std::vector<Role> roles;                     ///< per replica
  std::vector<double> dynamic_energy;          ///< per replica: [J] above idle power (StepModel::step)
  KvGeometry kv;
  double end = 0;                              ///< [s] the last completion
};

/// Serves the requests admission.hpp admits (with its prompt and output lengths); the rejected ones keep their
/// record (status, no times). Throws ScenarioError when none is served, SimulationError if requests are left
/// unfinished.
ServingResult simulate_serving(const scenario::Scenario& s, const std::vector<Request>& requests);

}  // namespace llmsim::serving
