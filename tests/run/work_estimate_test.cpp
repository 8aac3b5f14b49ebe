// The work estimate (run/work_estimate.hpp) against the plans it stands for: on shipped training scenarios of
// every shape (dense and MoE, 1F1B, interleaved, zero-bubble, STP, 16 to 3,072 GPUs) the estimated ops, from two
// small plans, are those the workload builder emits for the whole run (within 1%).
#include <cmath>
#include <gtest/gtest.h>

#include "../support/scenarios.hpp"
#include "llmsim/run/preflight.hpp"
#include "llmsim/run/work_estimate.hpp"
#include "llmsim/serving/workload.hpp"

namespace {
using namespace llmsim;

TEST(WorkEstimate, OpsAreThoseOfThePlan) {
  for (const char* file : {"scenarios/default.json", "scenarios/validation/gpt-145.6b.json",
                           "scenarios/validation/gpt-1008b.json", "scenarios/pipeline/zb-h1-gpt-39.1b.json",
                           "scenarios/pipeline/stp-qwen2-12b-a800.json", "scenarios/moe/olmoe-ep8-a100.json",
                           "scenarios/regression/pipeline-gpipe.json", "scenarios/regression/moe-pipeline-tutel.json"}) {
    const auto s = test::shipped(file);
    const auto p = run::preflight(s);
    ASSERT_GT(p.ops, 0) << file;
    const double ratio = p.estimate.ops / p.ops;
    EXPECT_NEAR(ratio, 1.0, 0.01) << file << ": estimated " << p.estimate.ops << " ops, the plan has " << p.ops;
  }
}

TEST(WorkEstimate, DefaultScenarioByHand) {
  // gpt-1.7b on 16 GPUs, tp 2 pp 2 dp 4: 8 workers; interleaved v = 2, m = 64 / (1 * 4) = 16; 2 iterations.
  const auto e = run::estimate_work(test::shipped("scenarios/default.json"));
  EXPECT_EQ(e.gpus, 16);
  // Each pass is a compute, a send and a receive (none at the pipeline's ends) plus the tp collectives of
  // Megatron's layers; the estimate is that of the plan: checked in OpsAreThoseOfThePlan.
  // 2 pipeline transfers per (worker, micro-batch, chunk), and per worker and iteration a flow for each gradient
  // bucket's reduction (dp 4 > 1). Buckets: gpt-1.7b has 24 layers of 4h^2 + 4h (attention with biases) +
  // 2hf + f + h (GeLU FFN) + 4h (two LayerNorms) = 63,730,944 parameters at h 2304, f 9216, plus V h + 2048 h
  // (embedding and learned positions, tied head) + 2h (final norm) = 1,652,230,656; a quarter per worker (tp 2 x
  // pp 2), 2 bytes each, in 40 MB buckets: ceil(20.65) = 21.
  EXPECT_EQ(e.flows, 8 * 2 * 16 * 2 * 2 + 8 * 2 * 21);
  EXPECT_EQ(e.field, "/training/global_batch");
}

TEST(WorkEstimate, ServingCountsRequestsAndSteps) {
  const auto s = test::shipped("scenarios/regression/serving-vllm.json");
  const auto e = run::estimate_work(s);
  EXPECT_EQ(e.requests, 200);  // serving.max_requests
  // A step per 16 output tokens of the requests as drawn (uniform 16-512 tokens: about 200 x 264 / 16 = 3300).
  double outputs = 0;
  for (const auto& r : serving::make_requests(s, 1.0)) outputs += r.output_tokens;
  EXPECT_DOUBLE_EQ(e.ops, outputs / 16);
  EXPECT_NEAR(outputs / 200, 264, 3 * 143 / std::sqrt(200.0));  // the uniform's mean, its sd (512 - 16) / sqrt(12)
}

}  // namespace
