// End to end: an error in a value the scenario took from a preset file names that file, so that a user who edited
// a preset finds the line to fix; a value the scenario gives itself is named by its path alone.
#include <cstdlib>

#include "../support/cli.hpp"

namespace {
using namespace llmsim::test;

TEST_F(Cli, AnErrorInAPresetsValueNamesThePresetFile) {
  const fs::path configs = dir_ / "configs";
  fs::copy(source("configs"), configs, fs::copy_options::recursive);
  const fs::path preset = configs / "hardware" / "A100-SXM4-80GB.json";
  json hw = json::parse(read_file(preset));
  hw["calibration"]["matmul_efficiency"] = 2;  // out of range
  std::ofstream(preset) << hw.dump(2);
  const char* previous = std::getenv("LLMSIM_CONFIG_DIR");
  const std::string restore = previous ? previous : "";
  ::setenv("LLMSIM_CONFIG_DIR", configs.c_str(), 1);
  const auto from_preset = run("validate '" + source("scenarios/default.json") + "'");
  const auto own = run("validate '" + source("scenarios/default.json") + "' --set hardware.calibration.matmul_efficiency=3");
  previous ? ::setenv("LLMSIM_CONFIG_DIR", restore.c_str(), 1) : ::unsetenv("LLMSIM_CONFIG_DIR");
  expect_input_error(from_preset, "/hardware/calibration/matmul_efficiency: value 2 is out of range");
  EXPECT_NE(from_preset.err.find("(the value comes from the preset file " + preset.string() + ")"), std::string::npos)
      << from_preset.err;
  expect_input_error(own, "/hardware/calibration/matmul_efficiency: value 3 is out of range");
  EXPECT_EQ(own.err.find("preset file"), std::string::npos) << own.err;
  // A field the preset does not hold has no value from it: a topology preset given as the whole cluster section
  // lacks cluster.nodes, and the error no longer blames the preset file.
  const auto missing = run("validate '" + source("scenarios/default.json") + "' --set cluster=selene");
  expect_input_error(missing, "/cluster/nodes: missing required field");
  EXPECT_EQ(missing.err.find("preset file"), std::string::npos) << missing.err;
}

// {"name": <a preset>} without "preset" would be a custom section with every default, silently not the preset its
// name promises; a resolved scenario (every key of the preset present) still loads as it is.
TEST_F(Cli, APartialSectionNamedLikeAPresetIsRefusedAndAResolvedOneLoads) {
  const auto partial = run("validate '" + source("scenarios/default.json") + "' --set 'software={\"name\": \"nemo-24.07\"}'");
  expect_input_error(partial, "/software: an object without \"preset\" is a custom software and lacks the preset nemo-24.07's");
  const auto hardware = run("validate '" + source("scenarios/default.json") +
                            "' --set 'hardware={\"name\": \"H100-SXM5-80GB\", \"gpus_per_node\": 8}'");
  expect_input_error(hardware, "/hardware: an object without \"preset\" is a custom hardware");
  const auto resolved = run("validate '" + source("scenarios/default.json") + "' --set software=nemo-24.07 --set hardware=H100-SXM5-80GB");
  ASSERT_EQ(resolved.code, 0) << resolved.err;
  std::ofstream(dir_ / "resolved.json") << resolved.out;
  const auto again = run("validate '" + (dir_ / "resolved.json").string() + "'");
  EXPECT_EQ(again.code, 0) << again.err;
  EXPECT_EQ(json::parse(again.out)["software"]["kernel_launch_us"], json::parse(resolved.out)["software"]["kernel_launch_us"]);
}

}  // namespace

TEST_F(Cli, AnEnginePresetHoldsOnlyWhatAnEngineReads) {
  // An unknown key, a "name" other than its file's, or a fit on no hardware preset was accepted and ignored; each
  // is an error naming the engine's file. The engine given by its name takes --set of its fields.
  const fs::path configs = dir_ / "configs", preset = configs / "engines" / "vllm-2023.json";
  const json original = json::parse(read_file(source("configs/engines/vllm-2023.json")));
  const std::string scenario = "validate '" + source("scenarios/regression/serving-vllm.json") + "'";
  fs::copy(source("configs"), configs, fs::copy_options::recursive);
  const char* previous = std::getenv("LLMSIM_CONFIG_DIR");
  const std::string restore = previous ? previous : "";
  ::setenv("LLMSIM_CONFIG_DIR", configs.c_str(), 1);
  std::vector<std::pair<json, std::string>> cases;
  json extra = original, renamed = original, device = original;
  extra["extra"] = 1;
  renamed["name"] = "other";
  device["fits"]["B9000"] = original["fits"]["A100-SXM4-80GB"];
  cases = {{extra, "unknown key \"extra\""}, {renamed, "its \"name\" is \"other\""}, {device, "fits: \"B9000\" is no hardware preset"}};
  std::vector<Result> results;
  for (const auto& [content, message] : cases) {
    std::ofstream(preset) << content.dump(2);
    results.push_back(run(scenario));
  }
  previous ? ::setenv("LLMSIM_CONFIG_DIR", restore.c_str(), 1) : ::unsetenv("LLMSIM_CONFIG_DIR");
  for (size_t i = 0; i < cases.size(); ++i) expect_input_error(results[i], preset.string() + ": " + cases[i].second);
  const auto set = run(scenario + " --set serving.engine=vllm-2023 --set serving.engine.step_overhead_us=1");
  ASSERT_EQ(set.code, 0) << set.err;
  EXPECT_EQ(json::parse(set.out)["serving"]["engine"]["step_overhead_us"], 1);
}
