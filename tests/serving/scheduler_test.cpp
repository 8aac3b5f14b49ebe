// Schedulers and the replica model without the clock (serving/scheduler.hpp, serving/replica.hpp): KV blocks are
// taken and given back as the formulas say, a preemption happens at exactly the step whose decode finds no free
// block, chunked prefill splits a prompt into the token budget, and the KV capacity equals the hand computation.
#include <gtest/gtest.h>

#include <cmath>

#include "llmsim/model/transformer.hpp"
#include "llmsim/serving/replica.hpp"
#include "serving_scenario.hpp"

namespace {
using namespace llmsim;
using namespace llmsim::serving;

struct Fixture {
  scenario::Scenario s;
  StepModel model;
  KvGeometry kv;
  std::vector<Request> requests;
  std::vector<Sequence> seqs;
  explicit Fixture(const nlohmann::json& j) : s(test::serving_scenario(j)), model(s) {
    const auto probe = make_scheduler(s);
    kv = kv_geometry(s, probe->max_batched_tokens(), probe->max_batch_size());
  }
  Replica replica() const {
    return Replica(0, Role::Both, model, make_scheduler(s), kv, s.serving.kv_cache, s.hardware.host_link_bandwidth);
  }
  void add(int prompt, int output) {
    requests.push_back({static_cast<int>(requests.size()), 0, prompt, output, {}});
  }
  /// Sequences for `requests` (call once all are added: the pointers must stay valid).
  void enqueue(Replica& r) {
    seqs.resize(requests.size());
    for (size_t i = 0; i < requests.size(); ++i) {
      seqs[i].request = &requests[i];
      seqs[i].prefill_target = requests[i].prompt_tokens;
      r.enqueue(&seqs[i]);
    }
  }
};

nlohmann::json small_cache(int blocks, const std::string& preemption) {
  auto j = test::serving_json("A100-SXM4-80GB", 4);
  j["serving"]["kv_cache"] = {{"blocks", blocks}, {"block_size", 16}, {"watermark", 0.0}, {"preemption", preemption}};
  return j;
}
}  // namespace

TEST(KvCapacity, BlocksEqualTheHandComputationForLlama2_70bOnA100Tp4) {
  Fixture f(test::serving_json("A100-SXM4-80GB", 4));
  // Llama-2-70B: h 8192, 64 heads of 128, 8 KV heads, FFN 28672 (SwiGLU), 80 layers, vocabulary 32000, untied.
  const double h = 8192, f_ = 28672, V = 32000, L = 80, t = 4, e = 2;
  const double layer = (h * h + 2 * h * 1024 + h * h) + 3 * h * f_ + 2 * h;  // q, k, v, o; gate, up, down; 2 norms
  const double weights = e * (L * layer + 2 * V * h) / t;
  // vLLM defaults: 8192 batched tokens, 256 sequences; per GPU 16 query heads, 2 KV heads.
  const double activations = 8192 * e * (2 * h + (16 + 2 * 2) * 128 + 2 * f_ / t) + 256 * 4 * V / t;
  const double per_token = L * 2 * 2 * 128 * e;  // K and V of 2 heads of 128 in 80 layers
  const double usable = 0.9 * 80.0 * (1 << 30) - weights - activations;
  EXPECT_EQ(f.kv.blocks, static_cast<long>(std::floor(usable / (16 * per_token))));
  EXPECT_DOUBLE_EQ(f.kv.bytes_per_token, per_token);
  EXPECT_NEAR(f.kv.weight_bytes, weights, 1e-6 * weights);
  EXPECT_GT(f.kv.blocks, 30000);  // about 40 GB of 1.31 MB blocks
}

TEST(Preemption, HappensAtTheFirstDecodeThatFindsNoFreeBlock) {
  // 6 blocks of 16 tokens, two 32-token prompts (2 blocks each) admitted in one prefill step; each decode step k
  // needs ceil((32 + k) / 16) blocks per sequence: 3 blocks each for k = 1..16 (all 6 taken), 4 at k = 17, when
  // the first sequence must take the second's blocks.
  Fixture f(small_cache(6, "recompute"));
  auto r = f.replica();
  f.add(32, 100);
  f.add(32, 100);
  f.enqueue(r);
  std::vector<Sequence*> finished, handoff;
  int step = 0, preempted_at = -1;
  for (; step < 40 && preempted_at < 0; ++step) {
    const Batch b = r.next();
    ASSERT_FALSE(b.empty());
    if (!b.preempted.empty()) {
      preempted_at = step;
      EXPECT_EQ(b.preempted.front(), &f.seqs[1]);  // the most recently admitted
      EXPECT_EQ(f.seqs[1].computed, 0);            // recompute: its KV is dropped
      EXPECT_EQ(f.seqs[1].prefill_target, 32 + 17);  // prompt + the 17 tokens it had produced
      EXPECT_EQ(f.seqs[0].blocks, 4);
    }
    r.apply(b, step, step + 1, finished, handoff);
  }
  EXPECT_EQ(preempted_at, 17);  // step 0 prefills both, steps 1-16 decode, step 17 runs out
}

TEST(Preemption, SwapMovesTheBlocksToHostMemoryAndBack) {
  // As above, but the second sequence's 3 blocks go to host memory at step 17 and come back once the first
  // (32 + 39 tokens: 5 blocks) has finished; its KV is kept, so it is never prefilled again.
  Fixture f(small_cache(6, "swap"));
  auto r = f.replica();
  f.add(32, 40);
  f.add(32, 40);
  f.enqueue(r);
  std::vector<Sequence*> finished, handoff;
  long swapped_out = 0, swapped_in = 0, prefill_tokens = 0;
  int step = 0;
  for (Batch b; !(b = r.next()).empty(); ++step) {
    if (step == 17) EXPECT_EQ(b.swap_out_blocks, 3);
    swapped_out += b.swap_out_blocks;
    swapped_in += b.swap_in_blocks;
    for (const auto& e : b.entries) prefill_tokens += e.decode ? 0 : e.tokens;
    r.apply(b, step, step + 1, finished, handoff);
  }
  EXPECT_EQ(swapped_out, 3);
  EXPECT_EQ(swapped_in, 3);
  EXPECT_EQ(prefill_tokens, 64);
  EXPECT_EQ(f.seqs[1].computed, 32 + 39);
  EXPECT_EQ(f.seqs[1].preemptions, 1);
  EXPECT_TRUE(f.seqs[0].done() && f.seqs[1].done());
}

TEST(ChunkedPrefill, SarathiSplitsAPromptIntoTheTokenBudget) {
  auto j = test::serving_json("A100-SXM4-80GB", 4);
  j["serving"]["scheduler"] = {{"name", "sarathi"}, {"chunk_size", 512}};
  Fixture f(j);
  auto r = f.replica();
  f.add(1300, 4);
  f.enqueue(r);
  std::vector<Sequence*> finished, handoff;
  std::vector<std::pair<int, int>> chunks;  // (tokens, context) of each prefill step
  for (int step = 0; step < 3; ++step) {
    const Batch b = r.next();
    ASSERT_EQ(b.entries.size(), 1u);
    chunks.push_back({b.entries[0].tokens, b.entries[0].context});
    r.apply(b, step, step + 1, finished, handoff);
  }
  EXPECT_EQ(chunks, (std::vector<std::pair<int, int>>{{512, 0}, {512, 512}, {276, 1024}}));
  EXPECT_EQ(f.seqs[0].generated, 1);  // the first token comes with the last chunk
  EXPECT_EQ(f.seqs[0].first_token, 3);
}

TEST(StaticBatching, PadsPromptsAndHoldsFinishedSlotsUntilTheLongestOutput) {
  auto j = test::serving_json("A100-SXM4-80GB", 4);
  j["serving"]["scheduler"] = {{"name", "static"}, {"max_batch_size", 2}};
  Fixture f(j);
  auto r = f.replica();
  f.add(100, 2);
  f.add(300, 5);
  f.add(50, 1);  // waits for the next batch
  f.enqueue(r);
  std::vector<Sequence*> finished, handoff;
  Batch b = r.next();
  ASSERT_EQ(b.entries.size(), 2u);
  EXPECT_EQ(b.entries[0].padded, 200);  // padded to the longest prompt
  EXPECT_EQ(b.entries[1].padded, 0);
  int steps = 1;
  for (r.apply(b, 0, 1, finished, handoff); (b = r.next()).entries.size() == 2; ++steps) {
    r.apply(b, steps, steps + 1, finished, handoff);
  }
  EXPECT_EQ(steps, 5);  // 1 prefill + 4 decodes: the longest output (5 tokens) sets the batch's length
  EXPECT_EQ(f.seqs[0].finished, 2);  // but each request finishes with its own last token
  EXPECT_EQ(b.entries.size(), 1u);   // then the third request's batch forms
}

TEST(Routers, EachPicksItsLeastLoadedReplica) {
  const auto s = test::serving_scenario(test::serving_json("A100-SXM4-80GB", 2));
  // outstanding, waiting, free blocks, waiting blocks
  const std::vector<ReplicaLoad> loads = {{5, 0, 100, 0}, {2, 3, 400, 350}, {3, 1, 90, 10}, {4, 2, 300, 20}};
  const Request r;
  auto pick = [&](const std::string& name) {
    auto j = test::serving_json("A100-SXM4-80GB", 2);
    j["serving"]["router"] = name;
    return make_router(test::serving_scenario(j))->route(r, loads);
  };
  EXPECT_EQ(pick("least-outstanding"), 1);  // 2 outstanding
  EXPECT_EQ(pick("jsq"), 0);                // nothing waiting
  EXPECT_EQ(pick("kv-aware"), 3);           // 300 - 20 = 280 blocks left after its waiting prompts
  auto rr = make_router(s);
  std::vector<int> turns;
  for (int i = 0; i < 6; ++i) turns.push_back(rr->route(r, loads));
  EXPECT_EQ(turns, (std::vector<int>{0, 1, 2, 3, 0, 1}));
}
