// sarathi: chunked prefill with a token budget (serving/scheduler.hpp).
#include <algorithm>

#include "batching.hpp"

namespace llmsim::serving {
namespace {

class Sarathi final : public Scheduler {
 public:
  Sarathi(int chunk, int max_batch) : chunk_(chunk), max_batch_(max_batch) {}
  Batch next(ReplicaQueues& q) override {
    Batch b;
    admit_prefilled(q, max_batch_);
    swap_in(q, b);
    schedule_decodes(q, b);
    int budget = continue_prefills(q, chunk_ - static_cast<int>(b.entries.size()), b);  // prefills under way
    while (budget > 0 && q.swapped.empty() && !q.waiting.empty() &&
           static_cast<int>(q.running.size()) < max_batch_) {
      Sequence* s = q.waiting.front();
      if (!s->in_prefill() || !above_watermark(q, extra_blocks(q, *s, s->prefill_target))) break;
      grow(q, *s, s->prefill_target);
      budget -= start_prefill(q, budget, b);
    }
    return b;
  }
  int max_batched_tokens() const override { return chunk_; }
  int max_batch_size() const override { return max_batch_; }

 private:
  int chunk_, max_batch_;
};

LLMSIM_REGISTER(Scheduler, "sarathi",
                "chunked prefill: all decodes plus prefill chunks up to a token budget per step (Sarathi-Serve)",
                {scenario::Field::integer("chunk_size", "token budget of one step (decodes count one each)")
                     .at_least(1).at_most(1e6).with_default(512),
                 scenario::Field::integer("max_batch_size", "most sequences running at once").at_least(1)
                     .at_most(1e6).with_default(256)},
                [](const scenario::Params& p, const scenario::Scenario&) {
                  return std::make_unique<Sarathi>(p.integer("chunk_size"), p.integer("max_batch_size"));
                });

}  // namespace
}  // namespace llmsim::serving
