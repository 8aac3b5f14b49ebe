// Requests the replicas cannot serve as they come (serving/admission.hpp), end to end through the CLI: a prompt
// that fills the model's context is rejected or truncated by serving.context_overflow, generation stops at the
// context, a request larger than the KV cache is rejected alone while the others finish, rejected requests count
// as not served in SLO attainment and goodput, and a workload of which nothing is served is an input error.
// Requests arrive 100 s apart and each runs alone, so its times are the step model's.
#include <algorithm>
#include <cstdio>

#include "serving_run.hpp"

using namespace llmsim;
using namespace llmsim::test;

namespace {

class Admission : public ServingRun {
 protected:
  /// Llama-2-70B on one tp-8 A100 replica with a context of `context` tokens, replaying `rows` of
  /// "prompt,output" 100 s apart; SLOs every served request meets.
  json scenario(const std::vector<std::pair<int, int>>& rows, int context) {
    std::string csv = "TIMESTAMP,ContextTokens,GeneratedTokens\n";
    for (size_t i = 0; i < rows.size(); ++i)
      csv += "2023-11-16 18:" + stamp(100 * i) + "," + std::to_string(rows[i].first) + "," +
             std::to_string(rows[i].second) + "\n";
    auto j = serving_json("A100-SXM4-80GB", 8);
    j["model"] = {{"preset", "llama2-70b"}, {"max_seq_len", context}};
    j["serving"]["max_requests"] = 0;
    j["serving"]["workload"] = {{"name", "azure-trace"}, {"trace", write("t" + std::to_string(n_) + ".csv", csv)}};
    j["serving"]["slo"] = {{"ttft_ms", 1e6}, {"tpot_ms", 1e6}};
    return j;
  }
  /// "MM:SS.0000000" of `seconds` after 18:00:00.
  static std::string stamp(long seconds) {
    char b[32];
    std::snprintf(b, sizeof b, "%02ld:%02ld.0000000", seconds / 60, seconds % 60);
    return b;
  }
  /// The stderr lines that are warnings.
  std::vector<std::string> warnings() const {
    std::vector<std::string> w;
    for (const auto& l : lines(err_))
      if (l.rfind("[warning]", 0) == 0) w.push_back(l);
    return w;
  }
  double last_finish(const std::vector<RequestRow>& rows) const {
    double end = 0;
    for (const auto& r : rows)
      if (!std::isnan(r[kFinished])) end = std::max(end, r[kFinished]);
    return end;
  }
};

// prompt, output of the trace; the context is 1000 tokens
const std::vector<std::pair<int, int>> kTrace = {{100, 5}, {1000, 4}, {999, 10}, {5000, 3}, {990, 20}, {200, 800}};

}  // namespace

TEST_F(Admission, RejectRefusesPromptsThatFillTheContextAndStopsOutputsAtIt) {
  const auto j = scenario(kTrace, 1000);
  const auto rows = requests(j);
  ASSERT_EQ(rows.size(), 6u);
  const std::vector<std::string> status = {"served", "rejected-context", "served", "rejected-context", "served", "served"};
  const std::vector<int> output = {5, 4, 1, 3, 10, 800};  // 999 + 1 and 990 + 10 reach the context; 200 + 800 = it
  for (size_t i = 0; i < 6; ++i) {
    EXPECT_EQ(rows[i].status, status[i]) << i;
    EXPECT_EQ(rows[i][kPrompt], kTrace[i].first) << i;
    EXPECT_EQ(rows[i][kOutput], output[i]) << i;
    EXPECT_EQ(rows[i][kRequestedPrompt], kTrace[i].first) << i;
    EXPECT_EQ(rows[i][kRequestedOutput], kTrace[i].second) << i;
    EXPECT_EQ(std::isnan(rows[i][kFirst]), status[i] != "served") << i;  // a rejected request has no times
    EXPECT_EQ(std::isnan(rows[i][kReplica]), status[i] != "served") << i;
  }
  const serving::StepModel m(serving_scenario(j));
  EXPECT_NEAR(rows[4][kE2e], m.prefill_time(990) + decode_steps(m, 990, 9), 1e-9);
  EXPECT_NEAR(rows[2][kE2e], m.prefill_time(999), 1e-9);  // the prefill's token is the only one

  const auto& a = summary_["serving"]["admission"];
  EXPECT_EQ(a["served"], 4);
  EXPECT_EQ(a["rejected"], 2);
  EXPECT_EQ(a["rejected_context"], 2);
  EXPECT_EQ(a["rejected_kv_cache"], 0);
  EXPECT_EQ(a["truncated_prompts"], 0);
  EXPECT_EQ(a["capped_outputs"], 2);
  EXPECT_EQ(a["context_overflow"], "reject");
  EXPECT_EQ(a["max_seq_len"], 1000);
  EXPECT_EQ(summary_["serving"]["requests"], 6);
  const double span = last_finish(rows);  // from the first arrival at 0; requests.csv has 9 digits
  EXPECT_DOUBLE_EQ(summary_["serving"]["slo"]["attainment"].get<double>(), 4.0 / 6);
  EXPECT_NEAR(summary_["serving"]["slo"]["goodput_requests_per_s"].get<double>() * span, 4, 1e-6);
  EXPECT_NEAR(summary_["serving"]["throughput"]["requests_per_s"].get<double>() * span, 4, 1e-6);
  EXPECT_NEAR(summary_["serving"]["throughput"]["output_tokens_per_s"].get<double>() * span, 5 + 1 + 10 + 800, 1e-6);

  const auto w = warnings();
  ASSERT_EQ(w.size(), 1u) << err_;
  EXPECT_EQ(w[0], "[warning] t: of 6 requests, 2 rejected (a prompt of 1000 tokens or more), 2 outputs stopped at "
                  "the context (model.max_seq_len 1000, serving.context_overflow reject)");
}

TEST_F(Admission, TruncateKeepsTheLastContextMinusOneTokensAndServesOneOutputToken) {
  auto j = scenario(kTrace, 1000);
  j["serving"]["context_overflow"] = "truncate";
  const auto rows = requests(j);
  ASSERT_EQ(rows.size(), 6u);
  const serving::StepModel m(serving_scenario(j));
  for (size_t i : {1, 3}) {
    EXPECT_EQ(rows[i].status, "truncated") << i;
    EXPECT_EQ(rows[i][kPrompt], 999) << i;
    EXPECT_EQ(rows[i][kOutput], 1) << i;
    EXPECT_EQ(rows[i][kRequestedPrompt], kTrace[i].first) << i;
    EXPECT_NEAR(rows[i][kTtft], m.prefill_time(999), 1e-9) << i;  // the truncated prompt is what is prefilled
    EXPECT_NEAR(rows[i][kE2e], m.prefill_time(999), 1e-9) << i;
  }
  const auto& a = summary_["serving"]["admission"];
  EXPECT_EQ(a["served"], 6);
  EXPECT_EQ(a["rejected"], 0);
  EXPECT_EQ(a["truncated_prompts"], 2);
  EXPECT_EQ(a["capped_outputs"], 4);
  EXPECT_DOUBLE_EQ(summary_["serving"]["slo"]["attainment"].get<double>(), 1.0);
  const auto w = warnings();
  ASSERT_EQ(w.size(), 1u) << err_;
  EXPECT_EQ(w[0], "[warning] t: of 6 requests, 2 prompts truncated to their last 999 tokens, 4 outputs stopped at "
                  "the context (model.max_seq_len 1000, serving.context_overflow truncate)");
}

TEST_F(Admission, ARequestLargerThanTheKvCacheIsRejectedAloneWhileTheOthersFinish) {
  // 20 blocks of 16 tokens, watermark 1%: 20 - ceil(0.2) = 19 blocks (304 tokens) for one request alone.
  auto j = scenario({{100, 5}, {400, 2}, {290, 14}, {290, 15}, {50, 1}}, 4096);
  j["serving"]["kv_cache"] = {{"blocks", 20}, {"block_size", 16}, {"watermark", 0.01}};
  const auto rows = requests(j);
  ASSERT_EQ(rows.size(), 5u);
  const std::vector<std::string> status = {"served", "rejected-kv-cache", "served", "rejected-kv-cache", "served"};
  for (size_t i = 0; i < 5; ++i) EXPECT_EQ(rows[i].status, status[i]) << i;
  const serving::StepModel m(serving_scenario(j));
  EXPECT_NEAR(rows[2][kE2e], m.prefill_time(290) + decode_steps(m, 290, 13), 1e-9);  // 304 tokens: all 19 blocks
  const auto& a = summary_["serving"]["admission"];
  EXPECT_EQ(a["served"], 3);
  EXPECT_EQ(a["rejected_kv_cache"], 2);
  EXPECT_EQ(a["rejected_context"], 0);
  EXPECT_DOUBLE_EQ(summary_["serving"]["slo"]["attainment"].get<double>(), 3.0 / 5);
  const auto w = warnings();
  ASSERT_EQ(w.size(), 1u) << err_;
  EXPECT_NE(w[0].find("of 5 requests, 2 rejected (larger than a replica's KV cache)"), std::string::npos) << w[0];
}

TEST_F(Admission, AWorkloadOfWhichNothingIsServedIsAnInputError) {
  auto j = scenario({{1000, 4}, {5000, 3}}, 1000);
  expect_input_error(run("run '" + write("a.json", j) + "' --out out"),
                     "/serving/context_overflow: no request is served: all of 2 requests have a prompt of "
                     "model.max_seq_len 1000 tokens or more");
  expect_input_error(run("validate '" + write("v.json", j) + "'"), "/serving/context_overflow: no request");
  j["serving"]["capacity_search"] = {{"enabled", true}};  // before the probes, not inside one
  expect_input_error(run("run '" + write("b.json", j) + "' --out out"), "/serving/context_overflow: no request");
  auto k = scenario({{400, 2}, {1000, 1}}, 1000);
  k["serving"]["kv_cache"] = {{"blocks", 20}};
  expect_input_error(run("run '" + write("c.json", k) + "' --out out"),
                     "/serving/kv_cache: no request is served: 1 of 2 requests need more KV blocks than the 19 of 16 "
                     "tokens a replica has above the watermark, the other 1 have a prompt of model.max_seq_len 1000");
}

TEST_F(Admission, AnUnknownPolicyIsAnErrorNamingThePath) {
  auto j = scenario(kTrace, 1000);
  j["serving"]["context_overflow"] = "drop";
  expect_input_error(run("run '" + write("a.json", j) + "' --out out"), "/serving/context_overflow: ");
  expect_input_error(run("validate '" + write("b.json", j) + "'"), "/serving/context_overflow: ");
}
