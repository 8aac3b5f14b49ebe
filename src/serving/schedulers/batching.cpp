#include "batching.hpp"

#include <algorithm>

namespace llmsim::serving {

long extra_blocks(const ReplicaQueues& q, const Sequence& s, long tokens) {
  return std::max(0L, q.kv.blocks_for(tokens) - s.blocks);
}

bool grow(ReplicaQueues& q, Sequence& s, long tokens) {
  const long need = extra_blocks(q, s, tokens);
  if (!q.kv.can_take(need)) return false;
  q.kv.take(need);
  s.blocks += static_cast<int>(need);
  return true;
}

void release(ReplicaQueues& q, Sequence& s) {
  q.kv.give(s.blocks);
  s.blocks = 0;
}

long tokens_after_step(const Sequence& s) { return s.in_prefill() ? s.prefill_target : s.computed + 1; }

bool above_watermark(const ReplicaQueues& q, long blocks) {
  return q.kv.free() - blocks >= q.watermark * q.kv.total();
}

long reservation(const ReplicaQueues& q, const Sequence& s, long reserve) {
  return std::min(std::max(reserve, static_cast<long>(s.prefill_target)), q.kv.total() * q.kv.block_size());
}

StepEntry prefill_entry(Sequence* s, int tokens) { return {s, tokens, s->computed, 0, false}; }

int continue_prefills(ReplicaQueues& q, int budget, Batch& b) {
  for (Sequence* s : q.running) {
    if (budget <= 0) break;
    if (!s->in_prefill()) continue;
    const int chunk = std::min(budget, s->prefill_target - s->computed);
    b.entries.push_back(prefill_entry(s, chunk));
    budget -= chunk;
  }
  return budget;
}

int start_prefill(ReplicaQueues& q, int budget, Batch& b) {
  Sequence* s = q.waiting.front();
  q.waiting.pop_front();
  q.running.push_back(s);
  const int chunk = std::min(budget, s->prefill_target - s->computed);
  b.entries.push_back(prefill_entry(s, chunk));
  return chunk;
}

void preempt(ReplicaQueues& q, Sequence* s, Batch& b) {
  q.running.erase(std::find(q.running.begin(), q.running.end(), s));
  ++s->preemptions;
  b.preempted.push_back(s);
  if (!q.recompute && !s->in_prefill() && q.host.can_take(s->blocks)) {
    q.host.take(s->blocks);
    b.swap_out_blocks += s->blocks;
    q.kv.give(s->blocks);
    q.swapped.push_back(s);
    return;
  }
  release(q, *s);
  s->computed = 0;
  s->prefill_target = s->request->prompt_tokens + s->generated;
  q.waiting.push_front(s);
}

void schedule_decodes(ReplicaQueues& q, Batch& b) {
  for (size_t i = 0; i < q.running.size(); ++i) {
    Sequence* s = q.running[i];
    if (s->in_prefill()) continue;
    bool preempted_self = false;
    while (!grow(q, *s, tokens_after_step(*s))) {
      Sequence* victim = q.running.back();
      preempt(q, victim, b);
      if (victim == s) {
        preempted_self = true;
        break;
      }
    }
    if (preempted_self) break;  // s was the last one: the victims always come from behind it
    b.entries.push_back({s, 1, s->computed, 0, true});
  }
}

void swap_in(ReplicaQueues& q, Batch& b) {
  while (!q.swapped.empty()) {
    Sequence* s = q.swapped.front();
    const long need = s->blocks;
    if (!above_watermark(q, need)) return;
    q.kv.take(need);
    q.host.give(need);
    b.swap_in_blocks += need;
    q.swapped.pop_front();
    q.running.push_back(s);
  }
}

void admit_prefilled(ReplicaQueues& q, int max_running, const std::function<long(const Sequence&)>& reserve) {
  while (!q.waiting.empty() && !q.waiting.front()->in_prefill() && static_cast<int>(q.running.size()) < max_running) {
    Sequence* s = q.waiting.front();
    if (!grow(q, *s, reserve ? std::max<long>(s->computed, reserve(*s)) : s->computed)) return;
    q.waiting.pop_front();
    q.running.push_back(s);
  }
}

BatchLimits batch_limits(const scenario::Params& params) {
  return {params.integer("max_batched_tokens"), params.integer("max_batch_size")};
}

scenario::FieldList batch_limit_fields(int default_tokens, int default_batch) {
  using scenario::Field;
  return {Field::integer("max_batched_tokens", "most tokens in one step (a prompt longer than this runs alone)")
              .at_least(1).at_most(1e6).with_default(default_tokens),
          Field::integer("max_batch_size", "most sequences running at once").at_least(1).at_most(1e6)
              .with_default(default_batch)};
}

}  // namespace llmsim::serving
