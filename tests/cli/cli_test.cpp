// End-to-end tests of the llmsim executable: exit codes, one-line error messages naming the JSON path or the
// file, no half-written output directory on bad input, the files a run writes, determinism, and the
// version/list/validate subcommands. Each test runs the binary from a fresh temporary directory.
#include "../support/cli.hpp"

namespace {
using namespace llmsim::test;
namespace fs = std::filesystem;
using nlohmann::json;

// ---------------------------------------------------------------- bad input

TEST_F(Cli, MissingScenarioFile) {
  const auto r = run("run missing.json --out out");
  expect_input_error(r, "missing.json:");
}

TEST_F(Cli, MalformedJson) {
  const std::string file = write("bad.json", std::string(R"({"name": "x",)"));
  const auto r = run("run '" + file + "' --out out");
  expect_input_error(r, file + ":");
  EXPECT_NE(r.err.find("malformed JSON at line 1"), std::string::npos) << r.err;
}

TEST_F(Cli, UnknownKey) {
  json j = default_json();
  j["parallelism"]["tpp"] = 2;
  const auto r = run("run '" + write("s.json", j) + "' --out out");
  expect_input_error(r, "/parallelism/tpp:");
  EXPECT_NE(r.err.find("did you mean \"tp\""), std::string::npos) << r.err;
}

TEST_F(Cli, WrongType) {
  json j = default_json();
  j["parallelism"]["tp"] = "four";
  const auto r = run("run '" + write("s.json", j) + "' --out out");
  expect_input_error(r, "/parallelism/tp:");
}

TEST_F(Cli, ParallelismProductMismatch) {
  json j = default_json();
  j["parallelism"]["dp"] = 2;  // 2*2*2 != 16 GPUs
  const auto r = run("run '" + write("s.json", j) + "' --out out");
  expect_input_error(r, "/parallelism/dp:");
}

TEST_F(Cli, BadOverrideValue) {
  const auto r = run("run '" + source("scenarios/default.json") + "' --out out --set parallelism.dp=3");
  expect_input_error(r, "/parallelism/dp:");
}

TEST_F(Cli, MalformedOverride) {
  const auto r = run("run '" + source("scenarios/default.json") + "' --out out --set parallelism.tp");
  expect_input_error(r, "--set parallelism.tp:");
}

TEST_F(Cli, ValidateReportsErrorsToo) {
  json j = default_json();
  j["training"]["recompute"] = "partial";
  const auto r = run("validate '" + write("s.json", j) + "'");
  expect_input_error(r, "/training/recompute:");
  EXPECT_EQ(r.out, "");
}

TEST_F(Cli, FailedRunKeepsExistingOutputDir) {
  fs::create_directories(dir_ / "prev");
  write("prev/summary.json", std::string("{}"));
  json j = default_json();
  j["parallelism"]["dp"] = 2;
  const auto r = run("run '" + write("s.json", j) + "' --out prev");
  EXPECT_EQ(r.code, 2);
  EXPECT_EQ(read_file(dir_ / "prev" / "summary.json"), "{}");
  expect_no_staging_leftovers();
}

// ---------------------------------------------------------------- command line

TEST_F(Cli, UnknownFlagExits2) {
  const auto r = run("run '" + source("scenarios/default.json") + "' --bogus");
  EXPECT_EQ(r.code, 2) << r.err;
  EXPECT_FALSE(fs::exists(dir_ / "results"));
}

TEST_F(Cli, NoSubcommandExits2) {
  EXPECT_EQ(run("").code, 2);
}

TEST_F(Cli, UnknownListTopicExits2) {
  EXPECT_EQ(run("list gizmos").code, 2);
  // Without a category the one line names them (CLI11's "category is required" did not).
  expect_input_error(run("list"), "list: give a category (hardware, models, topologies, software, engines, "
                                  "strategies, routing, faults or serving)");
}

TEST_F(Cli, Version) {
  const auto r = run("--version");
  EXPECT_EQ(r.code, 0);
  EXPECT_EQ(r.out, "llmsim 0.1.0\n");
}

TEST_F(Cli, ListStrategies) {
  const auto r = run("list strategies");
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("interleaved-1f1b"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("1f1b"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("gpipe"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("virtual_stages"), std::string::npos) << r.out;
}

TEST_F(Cli, ListHardware) {
  const auto r = run("list hardware");
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("A100-SXM4-80GB"), std::string::npos) << r.out;
}

TEST_F(Cli, ListSoftwareAndEngines) {
  // Every preset of configs/software and configs/engines, as the reference names them.
  const auto software = run("list software");
  EXPECT_EQ(software.code, 0) << software.err;
  for (const char* name : {"megatron-2021", "nemo-24.07", "megatron-bridge-25.11", "deepspeed-2021"})
    EXPECT_NE(software.out.find("  " + std::string(name) + " - "), std::string::npos) << name << software.out;
  const auto engines = run("list engines");
  EXPECT_EQ(engines.code, 0) << engines.err;
  for (const char* name : {"vllm-2023", "tensorrt-llm-0.17"})
    EXPECT_NE(engines.out.find("  " + std::string(name) + " - "), std::string::npos) << name << engines.out;
}

TEST_F(Cli, ListModels) {
  const auto r = run("list models");
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("gpt-1.7b"), std::string::npos) << r.out;
}

// ---------------------------------------------------------------- validate

TEST_F(Cli, ValidatePrintsResolvedJson) {
  const auto r = run("validate '" + source("scenarios/default.json") + "'");
  ASSERT_EQ(r.code, 0) << r.err;
  const json resolved = json::parse(r.out);
  EXPECT_EQ(resolved["parallelism"]["tp"], 2);
  EXPECT_EQ(resolved["parallelism"]["dp"], 4);
  EXPECT_EQ(resolved["training"]["seq_len"], 2048);
  EXPECT_FALSE(fs::exists(dir_ / "results"));  // validate writes nothing
}

TEST_F(Cli, ValidateSetChangesTp) {
  const auto r = run("validate '" + source("scenarios/default.json") + "' --set parallelism.tp=4");
  ASSERT_EQ(r.code, 0) << r.err;
  const json resolved = json::parse(r.out);
  EXPECT_EQ(resolved["parallelism"]["tp"], 4);
  EXPECT_EQ(resolved["parallelism"]["dp"], 2);  // 16 GPUs / (4*2)
}

TEST_F(Cli, ValidateRepeatedSet) {
  const auto r = run("validate '" + source("scenarios/default.json") +
                     "' --set model.activation=swiglu --set hardware.memory_GiB=40");
  ASSERT_EQ(r.code, 0) << r.err;
  const json resolved = json::parse(r.out);
  EXPECT_EQ(resolved["model"]["activation"], "swiglu");
  EXPECT_EQ(resolved["hardware"]["memory_GiB"], 40);
}

// ---------------------------------------------------------------- run

TEST_F(Cli, RunWritesSummaryTraceAndResolvedScenario) {
  const auto r = run("run '" + source("scenarios/default.json") + "' --out out --set output.trace=true");
  ASSERT_EQ(r.code, 0) << r.err;
  const fs::path out = dir_ / "out";
  ASSERT_TRUE(fs::is_directory(out));
  expect_no_staging_leftovers();

  const json summary = json::parse(read_file(out / "summary.json"));
  for (const char* key : {"iteration_time_s", "tokens_per_s", "model_tflops_per_gpu", "hardware_tflops_per_gpu", "mfu",
                          "hfu", "pipeline_bubble_fraction", "exposed_comm_time_s", "time_breakdown_s",
                          "peak_memory_bytes", "wall_time_s", "simulated_events"})
    EXPECT_TRUE(summary.contains(key)) << "summary.json lacks " << key;
  EXPECT_GT(summary.value("iteration_time_s", 0.0), 0.0);
  EXPECT_GT(summary.value("mfu", 0.0), 0.0);
  EXPECT_LT(summary.value("mfu", 2.0), 1.0);

  const json trace = json::parse(read_file(out / "trace.json"));
  ASSERT_TRUE(trace.contains("traceEvents"));
  ASSERT_TRUE(trace["traceEvents"].is_array());
  EXPECT_FALSE(trace["traceEvents"].empty());

  const json resolved = json::parse(read_file(out / "scenario.resolved.json"));
  EXPECT_EQ(resolved["parallelism"]["dp"], 4);
  EXPECT_EQ(resolved["output"]["trace"], true);
}

TEST_F(Cli, StageBreakdownsEachFillTheIterationAndAverageToTheWhole) {
  // pp 2 with equal layers per stage: the last stage also runs the output layer and the loss, so it computes the
  // most and waits the least; each stage's categories sum to the iteration, and (equal GPUs per stage) their
  // mean is time_breakdown_s.
  const auto r = run("run '" + source("scenarios/default.json") + "' --out out --set output.trace=false");
  ASSERT_EQ(r.code, 0) << r.err;
  const json summary = json::parse(read_file(dir_ / "out" / "summary.json"));
  const json& stages = summary["time_breakdown_by_stage_s"];
  ASSERT_EQ(stages.size(), 2u);
  const double it = summary["iteration_time_s"].get<double>();
  for (const auto& [category, whole] : summary["time_breakdown_s"].items()) {
    EXPECT_NEAR((stages[0][category].get<double>() + stages[1][category].get<double>()) / 2, whole.get<double>(), 1e-9)
        << category;
  }
  for (const auto& stage : stages) {
    double sum = 0;
    for (const auto& [category, v] : stage.items())
      if (category != "stage") sum += v.get<double>();
    EXPECT_NEAR(sum, it, 1e-9);
  }
  EXPECT_GT(stages[1]["gemm"].get<double>(), stages[0]["gemm"].get<double>());
  EXPECT_LT(stages[1]["idle"].get<double>(), stages[0]["idle"].get<double>());
}

TEST_F(Cli, OverlappedP2pAppliesOnlyToInterleavingWithVirtualStages) {
  // Megatron-LM's arguments.py turns overlap_p2p_comm off without virtual stages; summary.json says what applied.
  auto applied = [&](const std::string& extra) {
    const auto r = run("run '" + source("scenarios/default.json") +
                       "' --out out --set output.trace=false --set parallelism.overlap_p2p_comm=true" + extra);
    EXPECT_EQ(r.code, 0) << r.err;
    return json::parse(read_file(dir_ / "out" / "summary.json"))["parallelism"]["overlap_p2p_comm"].get<bool>();
  };
  EXPECT_TRUE(applied(""));  // interleaved-1f1b, v 2, pp 2
  EXPECT_FALSE(applied(" --set strategies.pipeline_schedule.virtual_stages=1"));
  EXPECT_FALSE(applied(" --set strategies.pipeline_schedule=1f1b"));
}

TEST_F(Cli, CombinedOneFOneBIsReportedAndHidesTheAllToAllsAcrossNodes) {
  // OLMoE at ep 16 over two DGX A100 nodes, pp 1, 4 micro-batches: each steady forward braided with a backward.
  auto summary = [&](const std::string& extra) {
    const auto r = run("run '" + source("scenarios/moe/olmoe-ep8-a100.json") +
                       "' --out out --set output.trace=false --set parallelism.ep=16" + extra);
    EXPECT_EQ(r.code, 0) << r.err;
    return json::parse(read_file(dir_ / "out" / "summary.json"));
  };
  const json plain = summary(""), combined = summary(
      " --set 'strategies.pipeline_schedule={\"name\": \"interleaved-1f1b\", \"virtual_stages\": 1, "
      "\"ep_overlap\": true}'");
  EXPECT_FALSE(plain["parallelism"]["ep_overlap"].get<bool>());
  EXPECT_TRUE(combined["parallelism"]["ep_overlap"].get<bool>());
  // The first forward and the last backward run alone (2 of the 8 passes): at most 3/4 of it can hide.
  EXPECT_LT(combined["time_breakdown_s"]["ep_comm"].get<double>(), 0.5 * plain["time_breakdown_s"]["ep_comm"].get<double>());
  EXPECT_LT(combined["iteration_time_s"].get<double>(), plain["iteration_time_s"].get<double>());
}

TEST_F(Cli, PerNodeCopiesNeedExpertGroupsLaidOutAlikeOverNodes) {
  // ep 4 on 6-GPU nodes: the first group sits in node 0, the second spans nodes 0 and 1; the first group's relays
  // cannot stand for the second's.
  fs::create_directories(dir_ / "out");
  std::ofstream(dir_ / "out" / "keep.txt") << "kept";
  const auto r = run("run '" + source("scenarios/moe/olmoe-ep8-a100.json") +
                     "' --out out --set output.trace=false --set parallelism.ep=4 --set cluster.gpus_per_node=6 "
                     "--set cluster.nodes=2 --set training.global_batch=48 --set parallelism.ep_dispatch=per-node");
  EXPECT_EQ(r.code, 2);
  EXPECT_EQ(r.err.rfind("error: /parallelism/ep_dispatch: ", 0), 0u) << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  EXPECT_EQ(read_file(dir_ / "out" / "keep.txt"), "kept");
  EXPECT_FALSE(fs::exists(dir_ / "out" / "summary.json"));
}

TEST_F(Cli, RunWithoutTraceWritesNoTrace) {
  const auto r = run("run '" + source("scenarios/default.json") + "' --out out --set output.trace=false");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_TRUE(fs::exists(dir_ / "out" / "summary.json"));
  EXPECT_FALSE(fs::exists(dir_ / "out" / "trace.json"));
}

TEST_F(Cli, RunDefaultOutputDirIsResultsName) {
  const auto r = run("run '" + source("scenarios/default.json") + "' --set output.trace=false");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_TRUE(fs::exists(dir_ / "results" / "default" / "summary.json"));
}

TEST_F(Cli, RerunReplacesPreviousOutputs) {
  const std::string scenario = "run '" + source("scenarios/default.json") + "' --out out";
  ASSERT_EQ(run(scenario + " --set output.trace=true").code, 0);
  ASSERT_TRUE(fs::exists(dir_ / "out" / "trace.json"));
  const auto r = run(scenario + " --set output.trace=false");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_TRUE(fs::exists(dir_ / "out" / "summary.json"));
  EXPECT_FALSE(fs::exists(dir_ / "out" / "trace.json")) << "stale trace.json of the previous run kept";
  expect_no_staging_leftovers();
}

// ---------------------------------------------------------------- unsafe --out targets
// The output directory is replaced as a whole on commit. That must never destroy files llmsim did not write.

TEST_F(Cli, OutIntoForeignDirectoryKeepsItsFiles) {
  fs::create_directories(dir_ / "mine");
  write("mine/notes.txt", std::string("precious"));
  const auto r = run("run '" + source("scenarios/default.json") + "' --out mine --set output.trace=false");
  EXPECT_TRUE(fs::exists(dir_ / "mine" / "notes.txt")) << "--out deleted a file llmsim did not write (exit "
                                                        << r.code << ", stderr: " << r.err << ")";
  expect_no_staging_leftovers();
}

TEST_F(Cli, OutDotKeepsWorkingDirectory) {
  const fs::path work = dir_ / "work";
  fs::create_directories(work);
  write("work/mine.json", default_json());
  write("work/notes.txt", std::string("precious"));
  run("run mine.json --out . --set output.trace=false", work);
  EXPECT_TRUE(fs::exists(work / "mine.json")) << "--out . deleted the scenario file in the working directory";
  EXPECT_TRUE(fs::exists(work / "notes.txt")) << "--out . deleted a file in the working directory";
}

TEST_F(Cli, OutIsExistingFileIsInputError) {
  write("file.txt", std::string("userdata"));
  const auto r = run("run '" + source("scenarios/default.json") + "' --out file.txt --set output.trace=false");
  EXPECT_EQ(r.code, 2) << r.err;
  EXPECT_TRUE(fs::is_regular_file(dir_ / "file.txt")) << "--out replaced a regular file by a directory";
  EXPECT_EQ(read_file(dir_ / "file.txt"), "userdata");
  EXPECT_NE(r.err.find("error: "), std::string::npos) << r.err;
  expect_no_staging_leftovers();
}

TEST_F(Cli, OutUnderRegularFileIsInputError) {
  write("afile", std::string("x"));
  const auto r = run("run '" + source("scenarios/default.json") + "' --out afile/sub --set output.trace=false");
  EXPECT_EQ(r.code, 2) << "an unusable --out is a bad command-line value; stderr: " << r.err;
  const auto l = lines(r.err);
  ASSERT_FALSE(l.empty());
  EXPECT_EQ(l.back().rfind("error: ", 0), 0u) << r.err;
  EXPECT_NE(l.back().find("afile/sub"), std::string::npos) << r.err;
  EXPECT_EQ(read_file(dir_ / "afile"), "x");
  expect_no_staging_leftovers();
}

TEST_F(Cli, RunIsDeterministic) {
  const std::string scenario = "'" + source("scenarios/default.json") + "' --set output.trace=false";
  const auto a = run("run " + scenario + " --out a");
  ASSERT_EQ(a.code, 0) << a.err;
  const auto b = run("run " + scenario + " --out b");
  ASSERT_EQ(b.code, 0) << b.err;
  json sa = json::parse(read_file(dir_ / "a" / "summary.json"));
  json sb = json::parse(read_file(dir_ / "b" / "summary.json"));
  ASSERT_TRUE(sa.contains("wall_time_s"));
  sa.erase("wall_time_s");
  sb.erase("wall_time_s");
  EXPECT_EQ(sa, sb) << sa.dump(2) << "\nvs\n" << sb.dump(2);
}

}  // namespace

TEST_F(Cli, EmptyOutputPathIsAnError) {
  const auto r = run("run '" + source("scenarios/default.json") + "' --out ''");
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("--out"), std::string::npos) << r.err;
  EXPECT_FALSE(std::filesystem::exists(dir_ / "results"));
}

TEST_F(Cli, TheSummarySaysWhichTpOverlapRan) {
  // STP's setting (tp 8) asks for "wgrad": it hides a whole backward's tp all-reduces behind the same layer's
  // weight gradients. Interleaved 1F1B runs whole backwards; zb-v splits every backward into B and W passes, so
  // nothing runs beside them and the iteration is that of no overlap.
  const std::string stp = "scenarios/pipeline/stp-qwen2-12b-a800.json", quiet = "--set output.trace=false ";
  const auto interleaved = run_summary(stp, quiet + "--set strategies.pipeline_schedule=interleaved-1f1b");
  EXPECT_EQ(interleaved["parallelism"]["tp_comm_overlap"], "wgrad");
  const auto zb = run_summary(stp, quiet + "--set strategies.pipeline_schedule=zb-v");
  const auto zb_none = run_summary(stp, quiet + "--set strategies.pipeline_schedule=zb-v --set parallelism.tp_comm_overlap=none");
  EXPECT_EQ(zb["parallelism"]["tp_comm_overlap"], "none");
  EXPECT_DOUBLE_EQ(zb["iteration_time_s"].get<double>(), zb_none["iteration_time_s"].get<double>());
}

TEST_F(Cli, ASingleNodeHasNoBisection) {
  // One 8-GPU node has nothing to cut into two halves of nodes: null, not half of its own NICs.
  const auto one = run_summary("scenarios/default.json", "--set output.trace=false --set cluster.nodes=1 "
                                                         "--set parallelism.pp=1 --set parallelism.tp=8");
  EXPECT_TRUE(one["bisection_bandwidth_GBps"].is_null()) << one["bisection_bandwidth_GBps"];
}
