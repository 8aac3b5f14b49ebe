// step-time --prefill TOKENSxPROMPTS: several prompts prefilled in one step, as a batching engine runs them
// (issue 17): the same step the serving simulation prices for such a batch, and one-line errors otherwise.
#include "../support/cli.hpp"
#include "../support/scenarios.hpp"
#include "llmsim/serving/scheduler.hpp"
#include "llmsim/serving/step_model.hpp"

namespace {
using namespace llmsim::test;

const std::string kScenario = "scenarios/serving/llama2-70b-h100-code.json";

class StepTimeCli : public Cli {
 protected:
  double prefill_ms(const std::string& arg) {
    const auto r = run("step-time '" + source(kScenario) + "' --prefill " + arg);
    EXPECT_EQ(r.code, 0) << r.err;
    return json::parse(r.out)["time_ms"].get<double>();
  }
};

TEST_F(StepTimeCli, EightPromptsInOneStepAreTheSimulationsBatchOfEight) {
  // The step the serving simulation would run: 8 chunks of 512 new tokens on empty caches, 8 first tokens.
  const auto s = shipped(kScenario);
  const llmsim::serving::StepModel model(s);
  llmsim::model::InferenceStep st;
  st.prefill.assign(8, {512.0, 0.0});
  st.sampled = 8;
  EXPECT_NEAR(prefill_ms("512x8"), 1e3 * model.step_time(st, 8), 1e-9);
  EXPECT_DOUBLE_EQ(prefill_ms("512x1"), prefill_ms("512"));
  // About the tokens of one 4095-token prompt (the longest Llama 2's context admits) through the GEMMs, an eighth of
  // its causal attention pairs each.
  EXPECT_LT(prefill_ms("512x8"), prefill_ms("4095"));
  EXPECT_GT(prefill_ms("512x8"), 4 * prefill_ms("512"));
}

TEST_F(StepTimeCli, MalformedBatchesAreOneLineErrors) {
  for (const std::string bad : {"0", "512x", "x8", "512x0", "5x5x5", "-3", "99999999999"})
    expect_input_error(run("step-time '" + source(kScenario) + "' --prefill " + bad),
                       "--prefill: \"" + bad + "\" is not TOKENS or TOKENSxPROMPTS");
}

TEST_F(StepTimeCli, WholeNumberOptionsAreDecimal) {
  // CLI11 alone read "010" as octal 8 and "0x10" as 16; llmsim's counts are decimal, leading zeros dropped.
  const std::string base = "step-time '" + source(kScenario) + "' ";
  const auto ten = run(base + "--decode 010 --context 0100"), plain = run(base + "--decode 10 --context 100");
  ASSERT_EQ(ten.code, 0) << ten.err;
  EXPECT_EQ(ten.out, plain.out);
  expect_input_error(run(base + "--decode 0x10 --context 1"), "--decode: 0x10 is not a whole number from 1 to 1048576");
  expect_input_error(run(base + "--decode 1.5 --context 1"), "--decode: 1.5 is not a whole number from 1 to 1048576");
}

TEST_F(StepTimeCli, StepsBeyondTheContextOrTheKvCacheAreOneLineErrors) {
  // Llama 2's context is 4096 tokens: a 4095-token prompt fits with the token its prefill emits, 4096 do not; a
  // decode step on 4095 tokens of context writes the 4096th, on 4096 it would write a 4097th.
  const std::string cmd = "step-time '" + source(kScenario) + "' ";
  EXPECT_EQ(run(cmd + "--prefill 4095").code, 0);
  // A prompt of max_seq_len tokens leaves no room for the token its prefill emits: a run rejects it too.
  expect_input_error(run(cmd + "--prefill 4096"),
                     "--prefill: 4096 tokens of prompt and the first one generated exceed model.max_seq_len 4096 (at "
                     "most 4095)");
  EXPECT_EQ(run(cmd + "--decode 1 --context 4095").code, 0);
  expect_input_error(run(cmd + "--decode 1 --context 4096"),
                     "--context: 4096 tokens of context and the one decoded exceed model.max_seq_len 4096");
  // As many 4095-token prompts (with the emitted token, 4096) as the replica's KV blocks hold, and one more.
  const auto kv = llmsim::serving::replica_kv(shipped(kScenario));
  const long per_prompt = (4096 + kv.block_size - 1) / kv.block_size, most = kv.blocks / per_prompt;
  ASSERT_GT(most, 0);
  ASSERT_LT(most, 65536);
  EXPECT_EQ(run(cmd + "--prefill 4095x" + std::to_string(most)).code, 0);
  expect_input_error(run(cmd + "--prefill 4095x" + std::to_string(most + 1)),
                     "--prefill: " + std::to_string(most + 1) + " sequences of 4096 tokens (with the one each emits) need " +
                         std::to_string((most + 1) * per_prompt) + " KV blocks; the replica holds " +
                         std::to_string(kv.blocks));
  // A decode batch too large for the KV blocks names the batch, not its (short) context: one block per sequence.
  expect_input_error(run(cmd + "--decode " + std::to_string(kv.blocks + 1) + " --context 1"),
                     "--decode: " + std::to_string(kv.blocks + 1) + " sequences of 2 tokens (with the one each decodes) need " +
                         std::to_string(kv.blocks + 1) + " KV blocks");
}

}  // namespace
