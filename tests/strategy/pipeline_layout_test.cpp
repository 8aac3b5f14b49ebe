// Megatron-Core's pipeline layout strings (strategy/pipeline_layout.hpp): parsed chunk by chunk as Megatron-LM's
// parse_str_to_list unrolls them, and checked against the model and the schedule in chunk_layers.
#include <gtest/gtest.h>

#include <algorithm>

#include "../support/scenarios.hpp"
#include "llmsim/strategy/pipeline_layout.hpp"
#include "llmsim/strategy/pipeline_schedule.hpp"
#include "llmsim/util/error.hpp"

using namespace llmsim;

namespace {
std::vector<int> layers_of(const std::vector<strategy::LayoutChunk>& chunks) {
  std::vector<int> out;
  for (const auto& c : chunks) out.push_back(c.layers);
  return out;
}

std::string parse_error(const std::string& layout) {
  return test::error_of([&] { strategy::parse_pipeline_layout(layout, "/p"); }).message();
}
}  // namespace

TEST(PipelineLayout, DeepSeekV3RecipeOnGb300) {
  // Megatron-Bridge's GB300 DeepSeek-V3 layout, pp 4 x vp 4: E + 4 layers, 14 chunks of 4, then 1 layer, MTP, loss.
  const auto chunks = strategy::parse_pipeline_layout("Et*4|(tttt|)*14tmL", "/p");
  ASSERT_EQ(chunks.size(), 16u);
  EXPECT_TRUE(chunks.front().embedding);
  EXPECT_EQ(chunks.front().layers, 4);
  for (size_t j = 1; j + 1 < chunks.size(); ++j) EXPECT_EQ(chunks[j].layers, 4) << j;
  EXPECT_EQ(chunks.back().layers, 1);
  EXPECT_EQ(chunks.back().mtp_layers, 1);
  EXPECT_TRUE(chunks.back().loss);
}

TEST(PipelineLayout, CommasAreCosmeticAndGroupsRepeat) {
  // The H100 Llama3-70B FP8 recipe's layout: 2 + 34 x 2 + 3 + 3 x 2 + 1 = 80 layers in 40 chunks.
  const auto chunks = strategy::parse_pipeline_layout("Et*2|(t*2|)*34,t*3|(t*2|)*3,tL", "/p");
  std::vector<int> expected(40, 2);
  expected[35] = 3;
  expected[39] = 1;
  EXPECT_EQ(layers_of(chunks), expected);
  // Megatron-LM's docstring example: "Ettt|(tt|)*29,m|L" -> [E t t t], 29 x [t t], [m], [L].
  const auto doc = strategy::parse_pipeline_layout("Ettt|(tt|)*29,m|L", "/p");
  ASSERT_EQ(doc.size(), 32u);
  EXPECT_EQ(doc[30].mtp_layers, 1);
  EXPECT_EQ(doc[31].layers, 0);
  EXPECT_TRUE(doc[31].loss);
}

TEST(PipelineLayout, MalformedStringsAreOneLineErrors) {
  EXPECT_NE(parse_error("Et*|L").find("needs a count"), std::string::npos);
  EXPECT_NE(parse_error("E(t(t)*2)*2L").find("do not nest"), std::string::npos);
  EXPECT_NE(parse_error("E(t*5|t*6L").find("not closed"), std::string::npos);
  EXPECT_NE(parse_error("Et)L").find("closes no group"), std::string::npos);
  EXPECT_NE(parse_error("E(t|)tL").find("needs a repetition count"), std::string::npos);  // Megatron refuses it too
  EXPECT_NE(parse_error("*3EtL").find("there is none"), std::string::npos);
  EXPECT_NE(parse_error("tEL").find("first slot"), std::string::npos);
  EXPECT_NE(parse_error("EtLt").find("last slot"), std::string::npos);
  EXPECT_NE(parse_error("Etx|L").find("'x' is not a layout character"), std::string::npos);
  EXPECT_NE(parse_error("EtL ").find("' ' is not a layout character"), std::string::npos);  // not "L must be last"
  EXPECT_NE(parse_error("\xEFtL").find("the byte 0xEF is not"), std::string::npos);
  EXPECT_NE(parse_error("Et*99999999L").find("above 100000"), std::string::npos);
  EXPECT_NE(parse_error("E(t*1000|)*1000L").find("more than 100000 slots"), std::string::npos);
  EXPECT_EQ(strategy::parse_pipeline_layout("Et*00000006|L", "/p").front().layers, 6);  // leading zeros: 6
}

TEST(PipelineLayout, ChunkLayersFollowTheLayoutAndCheckIt) {
  // Llama 3.1 405B (126 layers) on pp 8 x vp 8 = 64 chunks: the embedding alone in chunk 0, then 2 layers in each
  // of the other 63 (the last with the loss).
  const std::string file = "scenarios/validation/megatron-bridge-25.11-blackwell/b200-llama3.1-405b-128gpus-fp8-cs.json";
  const std::string layout = "parallelism.pipeline_layout=\"E|(t*2|)*62ttL\"";
  const auto s = test::shipped(file, {"parallelism.pipeline_split=\"even\"", layout});
  const auto layers = strategy::chunk_layers(s, *strategy::make_pipeline_schedule(s));
  ASSERT_EQ(layers.size(), 64u);
  EXPECT_EQ(layers[0], 0);
  EXPECT_EQ(std::count(layers.begin(), layers.end(), 2), 63);
  const auto error = [&](const std::string& l) {
    return test::error_of([&] {
      const auto t = test::shipped(file, {"parallelism.pipeline_split=\"even\"", "parallelism.pipeline_layout=\"" + l + "\""});
      strategy::chunk_layers(t, *strategy::make_pipeline_schedule(t));
    });
  };
  EXPECT_EQ(error("E|(t*2|)*61ttL").message(), "63 chunks ('|' + 1), where pp * virtual_stages = 64 (the schedule's "
                                               "model chunks)");
  EXPECT_EQ(error("E|(t*2|)*62tL").message(), "125 transformer layers (t), where the model has 126 (model.layers)");
  EXPECT_EQ(error("E||(t*2|)*61ttttL").message(), "chunk 1 holds no transformer layer: only the first (E) and the "
                                                  "last (L) chunk may hold none");
  EXPECT_EQ(error("E|(t*2|)*62ttmL").message(), "1 multi-token-prediction layers (m), where the model has 0 "
                                                "(model.mtp_layers)");
  EXPECT_EQ(error("E|m(t*2|)*62ttL").message(), "m: llmsim runs the multi-token-prediction layers in the last "
                                                "chunk, with the loss (chunk 1 holds one)");
  EXPECT_EQ(error("t|(t*2|)*62tL").message(), "must begin with E (the embedding)");
  EXPECT_EQ(error("E|(t*2|)*62tt").path(), "/parallelism/pipeline_layout");
  // An MTP layer runs after the model's last, in the last chunk, with or without a layout.
  const auto with_mtp = test::shipped(file, {"parallelism.pipeline_split=\"even\"", "model.mtp_layers=1",
                                             "parallelism.pipeline_layout=\"E|(t*2|)*62ttmL\""});
  EXPECT_EQ(strategy::chunk_layers(with_mtp, *strategy::make_pipeline_schedule(with_mtp)).back(), 3);
  const auto split_mtp = test::shipped(file, {"model.mtp_layers=1"});  // embedding-loss: 1 + the MTP layer
  EXPECT_EQ(strategy::chunk_layers(split_mtp, *strategy::make_pipeline_schedule(split_mtp)).back(), 2);
  // A layout sets every chunk: another split beside it is a contradiction.
  EXPECT_EQ(test::error_of([&] { test::shipped(file, {layout}); }).path(), "/parallelism/pipeline_layout");
}
