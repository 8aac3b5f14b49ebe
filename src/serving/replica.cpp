#include "llmsim/serving/replica.hpp"

#include <algorithm>

#include "schedulers/batching.hpp"

namespace llmsim::serving {

Replica::Replica(int index, Role role, const StepModel& model, std::unique_ptr<Scheduler> scheduler,
                 const KvGeometry& kv, const scenario::KvCacheConfig& config, double host_bandwidth)
    : index_(index), role_(role), model_(model), scheduler_(std::move(scheduler)),
      q_{{}, {}, {}, KvBlocks(kv.blocks, kv.block_size), KvBlocks(kv.swap_blocks, kv.block_size), config.watermark,
         config.preemption == "recompute"},
      block_bytes_(kv.block_bytes), host_bandwidth_(host_bandwidth) {}

void Replica::enqueue(Sequence* s) {
  q_.waiting.push_back(s);
  ++outstanding_;
}

model::InferenceStep inference_step(const Batch& b) {
  model::InferenceStep st;
  for (const auto& e : b.entries) {
    if (e.decode) {
      st.decode_seqs += e.tokens;
      st.padding += e.padded;
      st.decode_context += e.context;
      st.sampled += e.tokens;
    } else {
      st.prefill.push_back({static_cast<double>(e.tokens), static_cast<double>(e.context)});
      st.padding += e.padded;
      if (e.context + e.tokens >= e.seq->prefill_target) st.sampled += 1;
    }
  }
  return st;
}

double Replica::start(const Batch& b) {
  const double swap = (b.swap_in_blocks + b.swap_out_blocks) * block_bytes_ / host_bandwidth_;
  const StepCost c = model_.step(inference_step(b), static_cast<int>(b.entries.size()));
  started_energy_ = c.energy;
  return c.time + swap;
}

void Replica::apply(const Batch& b, double start, double end, std::vector<Sequence*>& finished,
                    std::vector<Sequence*>& handoff) {
  StepRecord rec{start, end, 0, 0, static_cast<int>(b.entries.size()), static_cast<int>(b.preempted.size()),
                 q_.kv.used(), b.swap_out_blocks, static_cast<int>(q_.waiting.size()), static_cast<int>(q_.running.size())};
  for (const auto& e : b.entries) {
    Sequence* s = e.seq;
    if (e.tokens == 0) continue;  // a padded slot of a finished sequence
    const bool was_prefill = !e.decode;
    s->computed += e.tokens;
    (e.decode ? rec.decode_seqs : rec.prefill_tokens) += e.tokens;
    if (was_prefill && s->in_prefill()) continue;  // more chunks to come
    ++s->generated;
    if (s->generated == 1) s->first_token = end;
    if (s->done()) {
      s->finished = end;
      finished.push_back(s);
      --outstanding_;
      if (!scheduler_->holds_finished()) {
        q_.running.erase(std::find(q_.running.begin(), q_.running.end(), s));
        release(q_, *s);
      }
    } else if (role_ == Role::Prefill) {
      q_.running.erase(std::find(q_.running.begin(), q_.running.end(), s));
      handoff.push_back(s);
      --outstanding_;
    }
  }
  steps_.push_back(rec);
  dynamic_energy_ += started_energy_;
}

void Replica::release_sent(Sequence* s) { release(q_, *s); }

ReplicaLoad Replica::load(bool with_waiting_blocks) const {
  ReplicaLoad l;
  l.outstanding = outstanding_;
  l.waiting = static_cast<int>(q_.waiting.size());
  l.free_blocks = q_.kv.free();
  if (with_waiting_blocks)
    for (const Sequence* s : q_.waiting) l.waiting_blocks += q_.kv.blocks_for(std::max(s->prefill_target, s->computed));
  return l;
}

}  // namespace llmsim::serving
