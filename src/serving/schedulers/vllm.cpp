// vllm: continuous batching, prefill first (serving/scheduler.hpp).
#include "batching.hpp"

namespace llmsim::serving {
namespace {

class Vllm final : public Scheduler {
 public:
  explicit Vllm(BatchLimits l) : l_(l) {}
  Batch next(ReplicaQueues& q) override {
    Batch b;
    admit_prefilled(q, l_.max_batch_size);
    if (q.swapped.empty()) {
      int tokens = 0;
      while (!q.waiting.empty() && static_cast<int>(q.running.size()) < l_.max_batch_size) {
        Sequence* s = q.waiting.front();
        if (!s->in_prefill()) break;  // prefilled elsewhere, waiting for blocks
        const int chunk = s->prefill_target - s->computed;
        if (!b.empty() && tokens + chunk > l_.max_batched_tokens) break;
        if (!above_watermark(q, extra_blocks(q, *s, s->prefill_target))) break;
        grow(q, *s, s->prefill_target);
        tokens += start_prefill(q, chunk, b);
      }
      if (!b.empty()) return b;
    }
    swap_in(q, b);
    schedule_decodes(q, b);
    return b;
  }
  int max_batched_tokens() const override { return l_.max_batched_tokens; }
  int max_batch_size() const override { return l_.max_batch_size; }

 private:
  BatchLimits l_;
};

LLMSIM_REGISTER(Scheduler, "vllm", "continuous batching, FCFS, whole prefills first, preemption when blocks run out (vLLM)",
                batch_limit_fields(8192, 256),
                [](const scenario::Params& p, const scenario::Scenario&) { return std::make_unique<Vllm>(batch_limits(p)); });

}  // namespace
}  // namespace llmsim::serving
