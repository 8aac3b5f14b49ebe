// orca: iteration-level scheduling with KV reserved up front (serving/scheduler.hpp).
#include "batching.hpp"

namespace llmsim::serving {
namespace {

class Orca final : public Scheduler {
 public:
  Orca(BatchLimits l, int reserve) : l_(l), reserve_(reserve) {}
  Batch next(ReplicaQueues& q) override {
    Batch b;
    admit_prefilled(q, l_.max_batch_size, [&](const Sequence& s) { return reservation(q, s, reserve_); });
    schedule_decodes(q, b);  // within the reservation: no block is ever short
    int tokens = static_cast<int>(b.entries.size());
    while (!q.waiting.empty() && static_cast<int>(q.running.size()) < l_.max_batch_size) {
      Sequence* s = q.waiting.front();
      const int chunk = s->prefill_target - s->computed;
      if (!s->in_prefill() || (!b.empty() && tokens + chunk > l_.max_batched_tokens)) break;
      if (!grow(q, *s, reservation(q, *s, reserve_))) break;
      tokens += start_prefill(q, chunk, b);
    }
    return b;
  }
  int max_batched_tokens() const override { return l_.max_batched_tokens; }
  int max_batch_size() const override { return l_.max_batch_size; }

 private:
  BatchLimits l_;
  int reserve_;
};

LLMSIM_REGISTER(Scheduler, "orca",
                "iteration-level scheduling: whole prefills and decodes in one step, KV of max_seq_len reserved per "
                "request (Orca)",
                batch_limit_fields(8192, 64), [](const scenario::Params& p, const scenario::Scenario& s) {
                  return std::make_unique<Orca>(batch_limits(p), s.model.max_seq_len);
                });

}  // namespace
}  // namespace llmsim::serving
