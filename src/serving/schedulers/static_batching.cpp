// static: request-level batching with padding, for contrast (serving/scheduler.hpp).
#include <algorithm>

#include "batching.hpp"

namespace llmsim::serving {
namespace {

class StaticBatching final : public Scheduler {
 public:
  StaticBatching(int max_batch, int reserve) : max_batch_(max_batch), reserve_(reserve) {}
  Batch next(ReplicaQueues& q) override {
    Batch b;
    const bool busy = std::any_of(q.running.begin(), q.running.end(), [](const Sequence* s) { return !s->done(); });
    if (busy) {  // the whole batch steps until its longest output is done; finished slots are padding
      for (Sequence* s : q.running) {
        if (!s->done()) grow(q, *s, s->computed + 1);  // beyond the reservation when blocks are free
        b.entries.push_back({s, s->done() ? 0 : 1, s->computed, s->done() ? 1 : 0, true});
      }
      return b;
    }
    for (Sequence* s : q.running) release(q, *s);
    q.running.clear();
    int longest = 0;
    while (!q.waiting.empty() && static_cast<int>(q.running.size()) < max_batch_) {
      Sequence* s = q.waiting.front();
      if (!grow(q, *s, reservation(q, *s, reserve_))) break;
      q.waiting.pop_front();
      q.running.push_back(s);
      longest = std::max(longest, s->prefill_target);
    }
    for (Sequence* s : q.running) {
      StepEntry e = prefill_entry(s, s->prefill_target);
      e.padded = longest - s->prefill_target;
      b.entries.push_back(e);
    }
    return b;
  }
  int max_batched_tokens() const override { return max_batch_ * reserve_; }
  int max_batch_size() const override { return max_batch_; }
  bool holds_finished() const override { return true; }

 private:
  int max_batch_, reserve_;
};

LLMSIM_REGISTER(Scheduler, "static",
                "request-level batching: a padded batch runs until its longest output is done (for contrast)",
                {scenario::Field::integer("max_batch_size", "requests per batch").at_least(1).at_most(1e6)
                     .with_default(16)},
                [](const scenario::Params& p, const scenario::Scenario& s) {
                  return std::make_unique<StaticBatching>(p.integer("max_batch_size"), s.model.max_seq_len);
                });

}  // namespace
}  // namespace llmsim::serving
