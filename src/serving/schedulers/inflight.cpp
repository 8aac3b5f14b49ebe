// inflight: TensorRT-LLM's in-flight batching with chunked context and no eviction (serving/scheduler.hpp).
#include <algorithm>

#include "batching.hpp"

namespace llmsim::serving {
namespace {

class Inflight final : public Scheduler {
 public:
  Inflight(int tokens, int max_batch) : tokens_(tokens), max_batch_(max_batch) {}
  Batch next(ReplicaQueues& q) override {
    Batch b;
    admit_prefilled(q, max_batch_, [&](const Sequence& s) { return reservation(q, s, whole(s)); });
    schedule_decodes(q, b);  // within the reservation: no block is ever short
    int budget = continue_prefills(q, tokens_ - static_cast<int>(b.entries.size()), b);  // contexts under way
    while (budget > 0 && !q.waiting.empty() && static_cast<int>(q.running.size()) < max_batch_) {
      Sequence* s = q.waiting.front();
      if (!s->in_prefill() || !grow(q, *s, reservation(q, *s, whole(*s)))) break;
      budget -= start_prefill(q, budget, b);
    }
    return b;
  }
  int max_batched_tokens() const override { return tokens_; }
  int max_batch_size() const override { return max_batch_; }

 private:
  /// GUARANTEED_NO_EVICT: a request's whole input and output.
  static long whole(const Sequence& s) {
    return static_cast<long>(s.request->prompt_tokens) + s.request->output_tokens;
  }
  int tokens_, max_batch_;
};

LLMSIM_REGISTER(Scheduler, "inflight",
                "in-flight batching with chunked context: all generation tokens plus context chunks up to "
                "max_num_tokens per step, KV of input + output reserved at admission, no eviction (TensorRT-LLM)",
                {scenario::Field::integer("max_num_tokens", "token budget of one step (a generation token counts one)")
                     .at_least(1).at_most(1e6).with_default(8192),
                 scenario::Field::integer("max_batch_size", "most sequences running at once").at_least(1)
                     .at_most(1e6).with_default(2048)},
                [](const scenario::Params& p, const scenario::Scenario&) {
                  return std::make_unique<Inflight>(p.integer("max_num_tokens"), p.integer("max_batch_size"));
                });

}  // namespace
}  // namespace llmsim::serving
