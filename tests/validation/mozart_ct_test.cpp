// Mozart's C_T on its three models (scenarios/moe/mozart-ct-*.json, docs/moe.md): under the documented
// co-activation model, clustered placement with one copy per destination cuts the copies a token needs from k
// (one per expert, the paper's baseline) to the paper's rough size — Qwen3-30B-A3B 8 -> about 5.8, OLMoE 8 ->
// about 5.6, DeepSeek-MoE 6 -> about 4.3 (Mozart Sec. 6) — within 15 %, and below contiguous placement.
#include "../support/cli.hpp"

namespace {
using namespace llmsim::test;

class MozartCT : public Cli {
 protected:
  double c_t(const std::string& model, const std::string& extra = "") {
    return run_summary("scenarios/moe/mozart-ct-" + model + ".json", extra)["moe"]["c_t"].get<double>();
  }
  void check(const std::string& model, double paper) {
    const double mozart = c_t(model), contiguous = c_t(model, "--set strategies.expert_placement=contiguous");
    EXPECT_NEAR(mozart / paper, 1.0, 0.15) << model;
    EXPECT_LT(mozart, contiguous) << model;
  }
};
}  // namespace

TEST_F(MozartCT, Qwen3) { check("qwen3-30b-a3b", 5.8); }
TEST_F(MozartCT, Olmoe) { check("olmoe-1b-7b", 5.6); }
TEST_F(MozartCT, DeepSeekMoe) { check("deepseek-moe-16b", 4.3); }
