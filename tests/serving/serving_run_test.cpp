// Serving runs end to end through the CLI (run/serving_run.hpp): one request alone has TTFT = the prefill step and
// TPOT = the decode steps of the step model; a trace is replayed exactly; round-robin cycles; disaggregation sends
// the KV cache between replicas; the capacity search brackets the SLO; bad input is a clear error.
#include <cmath>

#include "serving_run.hpp"

using namespace llmsim;
using namespace llmsim::test;

TEST_F(ServingRun, OneRequestAloneHasTheStepModelsPrefillAndDecodeTimes) {
  auto j = serving_json("A100-SXM4-80GB", 4);
  j["cluster"]["nodes"] = 1;
  j["parallelism"]["dp"] = 2;
  const auto rows = requests(j);
  ASSERT_EQ(rows.size(), 1u);
  const serving::StepModel m(serving_scenario(j));
  EXPECT_NEAR(rows[0][kTtft], m.prefill_time(512), 1e-9);
  const double decode = decode_steps(m, 512, 15);  // after the prefill's first token
  EXPECT_NEAR(rows[0][kTpot], decode / 15, 1e-9);
  EXPECT_NEAR(rows[0][kE2e], m.prefill_time(512) + decode, 1e-9);
  EXPECT_EQ(rows[0][kPreemptions], 0);
}

TEST_F(ServingRun, ATraceIsReplayedExactly) {
  const std::string trace = write("t.csv",
                                  "TIMESTAMP,ContextTokens,GeneratedTokens\n"
                                  "2023-11-16 18:00:00.5000000,100,3\n"
                                  "2023-11-16 18:00:01.2500000,2000,1\n"
                                  "2023-11-16 18:00:07.0000001,37,0\n");
  auto j = serving_json("A100-SXM4-80GB", 8);
  j["serving"]["max_requests"] = 0;
  j["serving"]["workload"] = {{"name", "azure-trace"}, {"trace", trace}};
  const auto rows = requests(j);
  ASSERT_EQ(rows.size(), 3u);
  const std::vector<std::vector<double>> expected = {{0, 100, 3}, {0.75, 2000, 1}, {6.5000001, 37, 1}};
  for (size_t i = 0; i < 3; ++i) {
    EXPECT_NEAR(rows[i][kArrival], expected[i][0], 1e-9);
    EXPECT_EQ(rows[i][kPrompt], expected[i][1]);
    EXPECT_EQ(rows[i][kOutput], expected[i][2]);  // 0 generated tokens read as the prefill's one
    EXPECT_GE(rows[i][kFirst], rows[i][kArrival]);
  }
}

TEST_F(ServingRun, RoundRobinCyclesThroughTheReplicas) {
  auto j = serving_json("A100-SXM4-80GB", 2);
  j["serving"]["max_requests"] = 8;
  j["serving"]["router"] = "round-robin";
  const auto rows = requests(j);
  ASSERT_EQ(rows.size(), 8u);
  for (size_t i = 0; i < 8; ++i) EXPECT_EQ(rows[i][kReplica], i % 4) << i;
}

TEST_F(ServingRun, DisaggregationSendsTheKvCacheThenDecodesOnTheOtherReplica) {
  // Two nodes of 8 A100, one tp-8 replica each: node 0 prefills, node 1 decodes. The KV cache of 512 tokens
  // (80 layers x 2 x 8 KV heads x 128 x 2 bytes = 327,680 bytes per token) crosses the network over the node's
  // 8 NICs of 200 Gb/s.
  auto j = serving_json("A100-SXM4-80GB", 8);
  j["cluster"]["nodes"] = 2;
  j["serving"]["prefill_replicas"] = 1;
  const auto rows = requests(j);
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0][kPrefillReplica], 0);
  EXPECT_EQ(rows[0][kReplica], 1);
  const serving::StepModel m(serving_scenario(j));
  EXPECT_NEAR(rows[0][kTtft], m.prefill_time(512), 1e-9);  // the first token comes from the prefill replica
  const double decode = decode_steps(m, 512, 15);
  EXPECT_NEAR(rows[0][kFinished] - rows[0][kFirst] - rows[0][kTransfer], decode, 1e-9);
  const double wire = 512 * 327680.0 / (8 * 25e9);  // at line rate; efficiency and latency make it longer
  EXPECT_GT(rows[0][kTransfer], wire);
  EXPECT_LT(rows[0][kTransfer], 1.3 * wire);
}

TEST_F(ServingRun, TheCapacitySearchBracketsTheSloAttainment) {
  auto j = serving_json("A100-SXM4-80GB", 8);
  j["cluster"]["nodes"] = 1;
  j["serving"]["max_requests"] = 200;
  j["serving"]["capacity_search"] = {{"enabled", true}, {"attainment", 0.9}, {"max_scale", 16}, {"tolerance", 0.05}};
  j["serving"]["slo"] = {{"ttft_ms", 500}, {"tpot_ms", 100}};
  requests(j);
  const auto& c = summary_["capacity"];
  const double capacity = c["rate_scale"];
  ASSERT_GT(capacity, 1.0 / 16);
  ASSERT_LT(capacity, 16.0);
  double below = 0, above = 1e9;  // the probes closest to the capacity from each side
  for (const auto& p : c["probes"]) {
    const double scale = p["rate_scale"];
    if (p["attainment"].get<double>() >= 0.9) below = std::max(below, scale);
    else above = std::min(above, scale);
  }
  EXPECT_DOUBLE_EQ(below, capacity);
  EXPECT_LE(above / below - 1, 0.05);
  EXPECT_GE(summary_["serving"]["slo"]["attainment"].get<double>(), 0.9);  // the final run is at the capacity
  EXPECT_DOUBLE_EQ(summary_["serving"]["rate_scale"].get<double>(), capacity);
}

TEST_F(ServingRun, BadInputIsAClearError) {
  auto j = serving_json("A100-SXM4-80GB", 8);
  j["training"] = {{"global_batch", 8}};
  expect_input_error(run("run '" + write("a.json", j) + "' --out out"), "/training: a serving scenario has no training");
  auto k = serving_json("A100-SXM4-80GB", 8);
  k["serving"]["workload"] = {{"name", "azure-trace"},
                              {"trace", write("bad.csv", "TIMESTAMP,ContextTokens,GeneratedTokens\n"
                                                         "2023-11-16 18:00:00.5,100,3\n2023-11-16 18:00:01.0,x,3\n")}};
  const auto r = run("run '" + write("b.json", k) + "' --out out");
  expect_input_error(r, "");
  EXPECT_NE(r.err.find("bad.csv:3:"), std::string::npos) << r.err;
  auto f = serving_json("A100-SXM4-80GB", 8);
  f["faults"] = {{"process", "exponential"}};  // training-only sections are errors, not ignored
  expect_input_error(run("run '" + write("f.json", f) + "' --out out"), "/faults: a serving scenario has no faults");
  auto l = serving_json("A100-SXM4-80GB", 8);
  l["serving"]["prefill_replicas"] = 1;  // one replica of tp 8 on the 8 GPUs: none left to decode
  expect_input_error(run("run '" + write("c.json", l) + "' --out out"), "/serving/prefill_replicas");
}

TEST_F(ServingRun, ReservingSchedulersReserveForPrefilledSequencesToo) {
  // orca and inflight reserve a request's KV when it is admitted, so their decodes never need a block. On a
  // disaggregated decode replica the sequences arrive prefilled; they were admitted with only their prompt's
  // blocks, a decode then preempted to host memory (swap), and these schedulers never swap back in: a deadlock.
  // Now they reserve for them too and never preempt (which is why swap is refused with them: loader_test).
  // Llama-2-13B, one tp-4 prefill and one tp-4 decode replica on 8 A100, 4,000-token outputs at 5 req/s for 120 s.
  const json base = json::parse(R"({"name": "reserve", "kind": "serving", "hardware": "A100-SXM4-80GB",
      "cluster": {"preset": "selene", "nodes": 1}, "model": "llama2-13b", "parallelism": {"tp": 4, "pp": 1},
      "serving": {"precision": "fp16", "prefill_replicas": 1,
                  "workload": {"name": "poisson", "rate_rps": 5,
                               "prompt": {"distribution": "uniform", "min": 1, "max": 4000},
                               "output": {"distribution": "fixed", "tokens": 4000}},
                  "duration_s": 120},
      "output": {"trace": false}})");
  for (const std::string scheduler : {"orca", "inflight"}) {
    auto j = base;
    j["serving"]["scheduler"] = scheduler;
    const auto rows = requests(j);
    ASSERT_GT(rows.size(), 500u) << scheduler;  // about 5 x 120
    for (const auto& r : rows) {
      EXPECT_EQ(r.status, "served") << scheduler;
      EXPECT_EQ(r[kPreemptions], 0) << scheduler;
    }
    if (scheduler == "orca")  // its max_batch_size 64 holds on the decode replica too (83 ran there)
      EXPECT_LE(summary_["serving"]["batch_size"]["max"].get<double>(), 64) << scheduler;
  }
}

TEST_F(ServingRun, ACapacitySearchWhoseSlowestProbeSeesNoRequestNamesMaxScale) {
  // 10 s of 1 req/s: the probe at rate_scale 1/1000 stretches the arrivals 1000-fold, so none arrives within the
  // run; the run alone (rate_scale 1) serves its requests. The error names the search's range, before any run,
  // in validate as in run.
  auto j = serving_json("A100-SXM4-80GB", 8);
  j["cluster"]["nodes"] = 1;
  j["serving"].erase("max_requests");
  j["serving"]["duration_s"] = 10;
  j["serving"]["capacity_search"] = {{"enabled", true}, {"max_scale", 1000}};
  const std::string file = write("c.json", j);
  const std::string message = "/serving/capacity_search/max_scale: its probe at rate_scale 0.001 fails";
  expect_input_error(run("validate '" + file + "'"), message);
  expect_input_error(run("run '" + file + "' --out out"), message);
  EXPECT_FALSE(fs::exists(dir_ / "out"));
}

TEST_F(ServingRun, TheSummaryCountsTheBlocksSwappedOut) {
  // vLLM with 200 KV blocks of 16 tokens preempts; with 4 GiB of host memory per GPU it swaps the victims' blocks,
  // with 0.01 GiB (2 blocks: a block is 16 tokens x 2 x 32 layers x 16 KV heads x 128 x 2 bytes = 4 MiB per GPU
  // at tp 2, and the shortest prompt, 64 tokens, holds 4) it recomputes them instead, which summary.json tells apart.
  auto j = json::parse(R"({"name": "swap", "kind": "serving", "hardware": "A100-SXM4-80GB",
      "cluster": {"preset": "selene", "nodes": 1}, "model": "llama2-7b", "parallelism": {"tp": 2, "pp": 1},
      "serving": {"precision": "fp16", "max_requests": 60, "scheduler": "vllm", "prefill_replicas": 1,
                  "kv_cache": {"preemption": "swap", "blocks": 200, "swap_space_GiB": 4},
                  "workload": {"name": "poisson", "rate_rps": 8.0,
                               "prompt": {"distribution": "uniform", "min": 64, "max": 1024},
                               "output": {"distribution": "uniform", "min": 8, "max": 256}}},
      "output": {"trace": false}})");
  requests(j);
  EXPECT_GT(summary_["serving"]["preemptions"].get<int>(), 0);
  EXPECT_GT(summary_["serving"]["swapped_out_blocks"].get<long>(), 0);
  j["serving"]["kv_cache"]["swap_space_GiB"] = 0.01;
  requests(j);
  EXPECT_GT(summary_["serving"]["preemptions"].get<int>(), 0);
  EXPECT_EQ(summary_["serving"]["swapped_out_blocks"].get<long>(), 0);
}
