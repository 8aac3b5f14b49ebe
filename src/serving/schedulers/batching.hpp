#pragma once
// Moves the schedulers share (serving/scheduler.hpp): KV block accounting, admission, preemption, swapping.

#include <functional>

#include "llmsim/serving/scheduler.hpp"

namespace llmsim::serving {

/// Blocks `s` needs beyond those it holds to keep `tokens` tokens.
long extra_blocks(const ReplicaQueues& q, const Sequence& s, long tokens);
/// Gives `s` the blocks for `tokens` tokens if free; false (nothing taken) otherwise.
bool grow(ReplicaQueues& q, Sequence& s, long tokens);
/// Frees the blocks of `s`.
void release(ReplicaQueues& q, Sequence& s);
/// Tokens `s` holds after its next step: its prefill target while prefilling, else one more than computed.
long tokens_after_step(const Sequence& s);
/// Takes `s` out of `running` (it must be there) and preempts it: swap when that mode is set and the host has
/// room, else recompute (blocks freed, prefill target = prompt + generated, back to the front of `waiting`).
void preempt(ReplicaQueues& q, Sequence* s, Batch& b);
/// A decode token for every running sequence past its prefill, in admission order; when one needs a block and
/// none is free, the most recently admitted sequence is preempted (itself when it is the last).
void schedule_decodes(ReplicaQueues& q, Batch& b);
/// Brings swapped sequences back (oldest first) while their blocks fit above the watermark.
void swap_in(ReplicaQueues& q, Batch& b);
/// Admits waiting sequences that arrive prefilled (a disaggregated decode replica), oldest first, while their
/// blocks fit and fewer than `max_running` run; they decode from the next step on. `reserve(s)`: the tokens a
/// scheduler that reserves KV up front (orca, inflight) grants at admission, so that its decodes never need a
/// block; without it, the computed tokens.
void admit_prefilled(ReplicaQueues& q, int max_running, const std::function<long(const Sequence&)>& reserve = {});
/// True if `blocks` more can be taken leaving the watermark free.
bool above_watermark(const ReplicaQueues& q, long blocks);
/// Tokens a request reserves up front (orca, static): max(reserve, its prefill), at most the whole cache.
long reservation(const ReplicaQueues& q, const Sequence& s, long reserve);
/// A prefill chunk entry of `tokens` for `s`.
StepEntry prefill_entry(Sequence* s, int tokens);
/// Continues every running prefill, in admission order, with a chunk of what it still needs while `budget`
/// tokens last; returns the budget left.
int continue_prefills(ReplicaQueues& q, int budget, Batch& b);
/// Moves the first waiting sequence (its blocks granted) to running and adds its first chunk: what its prefill
/// needs, at most `budget` tokens. Returns the chunk's size.
int start_prefill(ReplicaQueues& q, int budget, Batch& b);

/// The scheduler limits every scheduler takes.
struct BatchLimits {
  int max_batched_tokens = 0;
  int max_batch_size = 0;
};
BatchLimits batch_limits(const scenario::Params& params);
scenario::FieldList batch_limit_fields(int default_tokens, int default_batch);

}  // namespace llmsim::serving
