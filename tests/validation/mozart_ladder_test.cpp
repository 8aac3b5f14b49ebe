// Mozart's ablation ladder on its chiplet system (scenarios/moe/mozart-system-*.json, docs/moe.md): baseline
// (no streaming, a copy per expert, contiguous placement) -> +streaming -> +one copy per destination ->
// +clustered placement never gets slower, and the full system is 1.5-2.5x faster than the baseline for Qwen3
// (the paper's band: 1.64x); OLMoE and DeepSeek-MoE land at 1.57x and 1.49x with the same system parameters.
#include "../support/cli.hpp"

namespace {
using namespace llmsim::test;

class MozartLadder : public Cli {
 protected:
  double iteration(const std::string& model, const std::string& extra) {
    return run_summary("scenarios/moe/mozart-system-" + model + ".json", extra)["iteration_time_s"].get<double>();
  }
  /// Iteration times of the four rungs.
  std::vector<double> ladder(const std::string& model) {
    const std::string contiguous = " --set strategies.expert_placement=contiguous";
    return {iteration(model, "--set strategies.moe_pipeline=vanilla-ep --set parallelism.ep_dispatch=per-expert" + contiguous),
            iteration(model, "--set parallelism.ep_dispatch=per-expert" + contiguous), iteration(model, contiguous),
            iteration(model, "")};
  }
};
}  // namespace

TEST_F(MozartLadder, Qwen3IsMonotoneAndInThePapersBand) {
  const auto t = ladder("qwen3-30b-a3b");
  for (size_t i = 1; i < t.size(); ++i) EXPECT_LT(t[i], t[i - 1]) << "rung " << i;
  EXPECT_GE(t[0] / t[3], 1.5);
  EXPECT_LE(t[0] / t[3], 2.5);
}

TEST_F(MozartLadder, OlmoeAndDeepSeekMoeAreMonotone) {
  // OLMoE lands in the paper's band; DeepSeek-MoE does not reach it (a known gap, docs/moe.md: the paper's NoP
  // link bandwidth is not available), but its full system is at least as fast as the paper's first rung, overlap
  // alone (1.49x), within 5%.
  const auto olmoe = ladder("olmoe-1b-7b"), deepseek = ladder("deepseek-moe-16b");
  for (const auto* t : {&olmoe, &deepseek})
    for (size_t i = 1; i < t->size(); ++i) EXPECT_LT((*t)[i], (*t)[i - 1]) << "rung " << i;
  EXPECT_GE(olmoe[0] / olmoe[3], 1.5);
  EXPECT_LE(olmoe[0] / olmoe[3], 2.5);
  EXPECT_GE(deepseek[0] / deepseek[3], 1.49 * 0.95);
}
