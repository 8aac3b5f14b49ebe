#pragma once
// A request's life on a replica: its KV blocks, prefill progress and output tokens. The scheduler
// (serving/scheduler.hpp) moves sequences between the waiting queue, the running batch and the swapped set.
#include <deque>
#include <vector>

#include "llmsim/serving/request.hpp"

namespace llmsim::serving {

struct Sequence {
  const Request* request = nullptr;
  /// Tokens whose KV the replica has computed. A prefill computes `prefill_target` tokens and produces the next
  /// output token; each decode step computes the KV of the last output token and produces one more, so in
  /// decode computed = prompt + generated - 1.
  int computed = 0;
  /// prompt tokens; after a recompute preemption prompt + generated (vLLM recomputes every token's KV)
  int prefill_target = 0;
  int generated = 0;        ///< output tokens produced so far (the prefill produces the first)
  int blocks = 0;           ///< KV blocks held on this replica
  int preemptions = 0;
  double first_token = -1;  ///< [s]
  double finished = -1;     ///< [s]
  bool in_prefill() const { return computed < prefill_target; }
  bool done() const { return generated >= request->output_tokens; }
};

}  // namespace llmsim::serving
