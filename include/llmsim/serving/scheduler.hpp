#pragma once
// Batch schedulers of one replica (`serving.scheduler`, one registry family). Each step the replica asks its
// scheduler for the next batch; the scheduler admits waiting sequences (allocating KV blocks), preempts running
// ones when blocks run out and returns what every sequence computes in this step.
//   vllm     continuous batching, FCFS, prefill first (vLLM v0's default scheduler; Kwon et al., SOSP 2023):
//            a step is either a batch of whole prefills (up to max_batched_tokens and max_batch_size, admitted
//            while the blocks of the prompt leave the watermark free) or one decode token for every running
//            sequence; when a decode needs a block and none is free the most recently admitted sequence is
//            preempted (recompute or swap, serving.kv_cache.preemption)
//   sarathi  chunked prefill (Agrawal et al., "Taming Throughput-Latency Tradeoff in LLM Inference with
//            Sarathi-Serve", OSDI 2024): every step carries all running decodes, then prefill chunks of the
//            partially prefilled and newly admitted sequences up to a token budget `chunk_size`
//   orca     iteration-level scheduling with selective batching (Yu et al., "Orca", OSDI 2022): whole prefills
//            and decodes in the same step; no paging: a request reserves the KV of max_seq_len tokens (the model's
//            context, at most the whole cache) when admitted, so no preemption is needed within it
//   static   request-level batching for contrast (FasterTransformer-style): when the replica is idle, up to
//            max_batch_size waiting requests form a batch whose prompts are padded to the longest; the batch
//            decodes until its longest output is done (finished requests keep their slot) before the next forms
//   inflight TensorRT-LLM's in-flight batching (trtllm-bench's GUARANTEED_NO_EVICT capacity scheduler): every
//            step carries all generation tokens, then context chunks of the partially prefilled and newly admitted
//            sequences up to `max_num_tokens`; a request is admitted only when the KV blocks of its whole input and
//            output are free (reserved up front), so nothing is ever preempted
// Preemption (vllm, sarathi): recompute frees the blocks and puts the sequence at the front of the waiting queue
// (prompt + generated tokens are prefilled again); swap copies its blocks to host memory over PCIe (the copy
// time is added to the step) and brings them back before new admissions, falling back to recompute when the
// swap space is full.
#include <deque>
#include <memory>
#include <vector>

#include "llmsim/serving/kv_cache.hpp"
#include "llmsim/serving/sequence.hpp"
#include "llmsim/strategy/registry.hpp"

namespace llmsim::serving {

/// What one sequence computes in a step: `tokens` new tokens (a prefill chunk, or 1 for a decode) on top of
/// `context` tokens already in its KV cache; `padded` extra tokens computed for nothing (static batching).
struct StepEntry {
  Sequence* seq = nullptr;
  int tokens = 0;
  int context = 0;
  int padded = 0;
  bool decode = false;
};

struct Batch {
  std::vector<StepEntry> entries;
  long swap_out_blocks = 0, swap_in_blocks = 0;
  std::vector<Sequence*> preempted;  ///< this step's preemptions
  bool empty() const { return entries.empty(); }
};

/// The queues of a replica. `waiting` is FCFS (recompute-preempted sequences return to its front); `running`
/// is in admission order; `swapped` in preemption order.
struct ReplicaQueues {
  std::deque<Sequence*> waiting;
  std::vector<Sequence*> running;
  std::deque<Sequence*> swapped;
  KvBlocks kv;
  KvBlocks host;          ///< swap space
  double watermark = 0;   ///< fraction of kv.total() kept free when admitting
  bool recompute = true;  ///< preemption mode
};

class Scheduler {
 public:
  virtual ~Scheduler() = default;
  /// The next batch; empty when nothing can run (waiting sequences that do not fit wait for blocks).
  virtual Batch next(ReplicaQueues& q) = 0;
  virtual int max_batched_tokens() const = 0;  ///< largest tokens of one step (sizes the activation memory)
  virtual int max_batch_size() const = 0;      ///< largest sequences of one step
  /// True when finished sequences keep their slot and blocks until the scheduler lets them go (static
  /// batching); otherwise the replica removes a finished sequence from `running` and frees its blocks.
  virtual bool holds_finished() const { return false; }
};

using SchedulerRegistry = strategy::Registry<Scheduler>;

std::unique_ptr<Scheduler> make_scheduler(const scenario::Scenario& s);

/// The KV cache of one replica of `s`, its activations sized by the scheduler's limits (kv_cache.hpp).
KvGeometry replica_kv(const scenario::Scenario& s);

}  // namespace llmsim::serving
