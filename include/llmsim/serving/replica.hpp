#pragma once
// One serving replica without the clock: its queues and KV blocks, its scheduler, and what a step does to its
// sequences. The simulation (serving/simulation.hpp) asks for a batch, sleeps its duration and applies it.
//   A prefill that ends produces a token (the first, or the next one after a recompute); a decode produces one.
//   A sequence whose last output token is produced finishes: it leaves `running` and frees its blocks (unless
//   the scheduler holds finished sequences, static batching).
//   On a prefill-only replica (disaggregation) a sequence whose prefill ends leaves `running` but keeps its
//   blocks until its KV cache has been sent (release_sent).
#include <memory>
#include <vector>

#include "llmsim/serving/kv_cache.hpp"
#include "llmsim/serving/router.hpp"
#include "llmsim/serving/scheduler.hpp"
#include "llmsim/serving/step_model.hpp"

namespace llmsim::serving {

enum class Role { Both, Prefill, Decode };

/// One step of one replica, as recorded.
struct StepRecord {
  double start = 0, end = 0;  ///< [s]
  int prefill_tokens = 0;     ///< prefill tokens computed (padding excluded)
  int decode_seqs = 0;        ///< decode tokens computed
  int sequences = 0;          ///< entries of the batch (incl. padded slots)
  int preemptions = 0;
  long kv_used = 0;           ///< blocks in use during the step
  long swapped_out = 0;       ///< KV blocks copied to host memory by the step's preemptions (the rest recompute)
  int waiting = 0, running = 0;
};

class Replica {
 public:
  Replica(int index, Role role, const StepModel& model, std::unique_ptr<Scheduler> scheduler, const KvGeometry& kv,
          const scenario::KvCacheConfig& config, double host_bandwidth);
  int index() const { return index_; }
  Role role() const { return role_; }
  /// A new sequence (or one whose KV cache arrived from a prefill replica) joins the waiting queue.
  void enqueue(Sequence* s);
  /// The scheduler's next batch (empty: nothing can run now).
  Batch next() { return scheduler_->next(q_); }
  /// [s] the batch takes: the step model plus swapping blocks over PCIe (one GPU's share at host_bandwidth). Keeps
  /// the step's energy for apply().
  double start(const Batch& b);
  /// Applies the step [start, end]: tokens, finishes (into `finished`) and, on a prefill-only replica, the
  /// sequences whose prefill ended (into `handoff`).
  void apply(const Batch& b, double start, double end, std::vector<Sequence*>& finished, std::vector<Sequence*>& handoff);
  /// A handed-off sequence's KV cache has left: its blocks are free.
  void release_sent(Sequence* s);
  /// What a router sees; waiting_blocks only `with_waiting_blocks` (it scans the waiting queue).
  ReplicaLoad load(bool with_waiting_blocks) const;
  const std::vector<StepRecord>& steps() const { return steps_; }
  /// [J] energy above idle power of the steps applied so far (StepModel::step).
  double dynamic_energy() const { return dynamic_energy_; }

 private:
  int index_;
  Role role_;
  const StepModel& model_;
  std::unique_ptr<Scheduler> scheduler_;
  ReplicaQueues q_;
  double block_bytes_, host_bandwidth_;
  int outstanding_ = 0;
  std::vector<StepRecord> steps_;
  double dynamic_energy_ = 0, started_energy_ = 0;
};

/// The model's view of a batch: prefill chunks, decodes, padding and sampled tokens.
model::InferenceStep inference_step(const Batch& b);

}  // namespace llmsim::serving
