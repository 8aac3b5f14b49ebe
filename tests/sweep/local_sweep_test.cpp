// llmsim sweep with the local backend: a 24-point grid with -j 2, resume after a kill, invalid points,
// sweep-level input errors, sweep files and zipped axes.
#include <cstdlib>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <set>
#include <thread>

#include "sweep_support.hpp"

namespace llmsim::test {
namespace {

class Sweep : public Cli {
 protected:
  fs::path runs() const { return dir_ / "out" / "runs"; }
  std::set<std::string> marked() const {
    std::set<std::string> ids;
    for (const auto& e : fs::directory_iterator(runs()))
      if (e.path().extension() == ".done") ids.insert(e.path().stem().string());
    return ids;
  }
};

const std::string kGrid24 =
    "--grid parallelism.tp=1,2,4,8 --grid strategies.pipeline_schedule.name=gpipe,1f1b,zb-h1 "
    "--grid training.micro_batch=1,2";

/// The expected parameter values of point i of kGrid24 (first axis slowest).
json grid24_params(size_t i) {
  const int tp[] = {1, 2, 4, 8};
  const char* schedule[] = {"gpipe", "1f1b", "zb-h1"};
  return {{"parallelism.tp", tp[i / 6]}, {"strategies.pipeline_schedule.name", schedule[i / 2 % 3]},
          {"training.micro_batch", 1 + int(i % 2)}};
}

TEST_F(Sweep, TwentyFourPointsWithTwoJobsMatchDirectRuns) {
  const auto r = run(fast_sweep(kGrid24) + " -j 2");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("24 points: 24 ok, 0 invalid, 0 failed"), std::string::npos) << r.out;
  EXPECT_EQ(lines(r.err).size(), 24u) << "one progress line per point when stderr is not a terminal:\n" << r.err;

  const auto rows = jsonl(dir_ / "out" / "results.jsonl");
  auto csv = csv_rows(dir_ / "out" / "results.csv");
  ASSERT_EQ(rows.size(), 24u);
  ASSERT_EQ(csv.size(), 24u);
  for (size_t i = 0; i < rows.size(); ++i) {
    const json want = grid24_params(i);
    for (const auto& [k, v] : want.items()) EXPECT_EQ(rows[i][k], v) << "point " << i << " " << k;
    EXPECT_EQ(rows[i]["status"], "ok") << rows[i].dump();
    EXPECT_EQ(csv[i]["point"], rows[i]["point"].get<std::string>());
    EXPECT_EQ(csv[i]["parallelism.tp"], std::to_string(want["parallelism.tp"].get<int>()));
    EXPECT_EQ(csv[i]["strategies.pipeline_schedule.name"], want["strategies.pipeline_schedule.name"]);
    EXPECT_EQ(std::stod(csv[i]["tokens_per_s"]), rows[i]["tokens_per_s"].get<double>());
    EXPECT_EQ(csv[i]["status"], "ok");
  }
  // Point 17: tp 4, zb-h1, micro-batch 2 - the same numbers as `llmsim run` with those --set values.
  ASSERT_EQ(grid24_params(17), json({{"parallelism.tp", 4}, {"strategies.pipeline_schedule.name", "zb-h1"},
                                     {"training.micro_batch", 2}}));
  const json direct = run_summary("scenarios/default.json", fast_sets() + " --set parallelism.tp=4 --set "
                                  "strategies.pipeline_schedule.name=zb-h1 --set training.micro_batch=2");
  const json& row = rows[17];
  for (const char* k : {"iteration_time_s", "tokens_per_s", "model_tflops_per_gpu", "hardware_tflops_per_gpu", "mfu",
                        "pipeline_bubble_fraction", "exposed_comm_time_s", "simulated_events"})
    EXPECT_EQ(row[k], direct[k]) << k;
  EXPECT_EQ(row["parallelism.dp"], direct["parallelism"]["dp"]);
  EXPECT_EQ(row["time_breakdown_s.gemm"], direct["time_breakdown_s"]["gemm"]);
  EXPECT_EQ(row["peak_memory_bytes"].get<double>(), max_of(direct["peak_memory_bytes"]));
  EXPECT_EQ(row["summary_status"], "ok");
  EXPECT_FALSE(row.contains("serving.ttft_s.p50")) << "a training sweep has no serving columns";
  // The point's own output directory is a complete llmsim run.
  EXPECT_EQ(json::parse(read_file(runs() / "0017" / "summary.json"))["tokens_per_s"], direct["tokens_per_s"]);
}

TEST_F(Sweep, KilledHalfwayResumesOnlyTheUnfinishedPoints) {
  const std::string cmd = "exec '" + std::string(LLMSIM_BINARY) + "' " + fast_sweep(kGrid24) + " -j 1 >first.out 2>first.err";
  const pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    ::setpgid(0, 0);
    if (::chdir(dir_.c_str()) != 0) ::_exit(127);
    ::execl("/bin/sh", "sh", "-c", cmd.c_str(), static_cast<char*>(nullptr));
    ::_exit(127);
  }
  ::setpgid(pid, pid);
  for (int i = 0; i < 60000; ++i) {  // up to a minute
    if (fs::exists(runs()) && marked().size() >= 12) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  ::kill(-pid, SIGKILL);
  ::waitpid(pid, nullptr, 0);

  const auto done = marked();
  ASSERT_GE(done.size(), 12u);
  ASSERT_LT(done.size(), 24u) << "the sweep finished before it was killed";
  struct Stamp {
    ino_t inode;
    long long mtime_ns;
    bool operator==(const Stamp& o) const { return inode == o.inode && mtime_ns == o.mtime_ns; }
  };
  auto stamp = [](const fs::path& p) {
    struct stat st {};
    EXPECT_EQ(::stat(p.c_str(), &st), 0) << p;
    return Stamp{st.st_ino, st.st_mtim.tv_sec * 1000000000LL + st.st_mtim.tv_nsec};
  };
  std::map<std::string, std::vector<Stamp>> before;
  for (const auto& id : done)
    before[id] = {stamp(runs() / id / "summary.json"), stamp(runs() / (id + ".done")), stamp(runs() / (id + ".log"))};

  const auto r = run(fast_sweep(kGrid24) + " -j 1");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.err.find("resuming"), std::string::npos) << r.err;
  std::set<std::string> ran;
  for (const auto& l : lines(r.err))
    if (l.rfind("sweep: ", 0) == 0 && l.find("/24 ") != std::string::npos) ran.insert(l.substr(l.find("/24 ") + 4, 4));
  std::set<std::string> unfinished;
  for (int i = 0; i < 24; ++i) {
    char id[8];
    std::snprintf(id, sizeof id, "%04d", i);
    if (!done.count(id)) unfinished.insert(id);
  }
  EXPECT_EQ(ran, unfinished) << r.err;
  for (const auto& [id, stamps] : before) {
    const std::vector<Stamp> now = {stamp(runs() / id / "summary.json"), stamp(runs() / (id + ".done")),
                                    stamp(runs() / (id + ".log"))};
    EXPECT_TRUE(now == stamps) << "point " << id << " was redone";
  }
  const auto rows = jsonl(dir_ / "out" / "results.jsonl");
  ASSERT_EQ(rows.size(), 24u);
  for (const auto& row : rows) EXPECT_EQ(row["status"], "ok") << row.dump();
  for (const auto& e : fs::directory_iterator(runs()))
    EXPECT_EQ(e.path().filename().string().find(".partial-"), std::string::npos) << "left behind: " << e.path();
}

TEST_F(Sweep, InvalidCombinationIsARowWithTheRunsError) {
  const auto r = run(fast_sweep("--grid parallelism.tp=2,3,4"));
  ASSERT_EQ(r.code, 0) << r.err;
  const auto direct = run("run '" + source("scenarios/default.json") + "' " + fast_sets() + " --set parallelism.tp=3 --out d");
  ASSERT_EQ(direct.code, 2);
  ASSERT_EQ(direct.err.rfind("error: ", 0), 0u);
  const std::string message = lines(direct.err).at(0).substr(7);

  const auto rows = jsonl(dir_ / "out" / "results.jsonl");
  ASSERT_EQ(rows.size(), 3u);
  EXPECT_EQ(rows[0]["status"], "ok");
  EXPECT_EQ(rows[2]["status"], "ok");
  EXPECT_EQ(rows[1]["status"], "invalid");
  EXPECT_EQ(rows[1]["parallelism.tp"], 3);
  EXPECT_EQ(rows[1]["error"], message);
  EXPECT_TRUE(rows[1]["tokens_per_s"].is_null());
  EXPECT_GT(rows[0]["tokens_per_s"].get<double>(), 0);
  EXPECT_NE(r.out.find("3 points: 2 ok, 1 invalid, 0 failed"), std::string::npos) << r.out;
  // Rerunning keeps the invalid point final: nothing runs again.
  const auto again = run(fast_sweep("--grid parallelism.tp=2,3,4"));
  EXPECT_EQ(again.code, 0);
  EXPECT_EQ(again.err.find("/3 "), std::string::npos) << again.err;
}

TEST_F(Sweep, SweepLevelErrorsAreExitTwoBeforeAnyRun) {
  expect_input_error(run(fast_sweep("--zip parallelism.tp=1,2 --zip training.micro_batch=1,2,4")),
                     "--zip training.micro_batch: has 3 values but --zip parallelism.tp has 2");
  expect_input_error(run(fast_sweep("--grid parallelism.tpp=1,2")),
                     "--grid parallelism.tpp: /parallelism/tpp: unknown key; did you mean \"tp\"?");
  expect_input_error(run(fast_sweep("--grid parallelism.tp")), "--grid parallelism.tp: expected json.path=value1,value2");
  expect_input_error(run(fast_sweep("--grid parallelism.tp=1,,2")), "--grid parallelism.tp=1,,2: an empty value");
  // A value of an axis that is broken JSON names the axis, not --set.
  expect_input_error(run(fast_sweep("--grid 'parallelism.tp=[1,2'")), "--grid parallelism.tp=[1,2: malformed JSON");
  expect_input_error(run(fast_sweep("--grid parallelism.tp=1,2 --zip parallelism.tp=1,2")),
                     "--zip parallelism.tp: the key is varied twice");
  expect_input_error(run(fast_sweep("--grid parallelism.tp=1,2 --set training.itrations=2")), "/training/itrations: unknown key");
  std::string hundred = "1";
  for (int v = 2; v <= 100; ++v) hundred += "," + std::to_string(v);
  expect_input_error(run(fast_sweep("--grid seed=" + hundred + " --grid training.global_batch=" + hundred +
                                    " --grid training.micro_batch=1,2")),
                     "sweep: the sweep has 20000 points (the product of its axes' lengths); at most 10000");
  expect_input_error(run(fast_sweep("--grid parallelism.tp=1,2 --set seed=1 --set seed=2")),
                     "--set seed=2: the key is set twice");
  // Each --slurm-option is one "#SBATCH" line of the job script: no line break, and an option.
  expect_input_error(run(fast_sweep("--grid parallelism.tp=1,2 --backend slurm --slurm-option=partition=gpu")),
                     "--slurm-option: \"partition=gpu\" is not one sbatch option");
  expect_input_error(run(fast_sweep("--grid parallelism.tp=1,2 --backend slurm --slurm-option=--array=0-5")),
                     "--slurm-option: \"--array=0-5\" is not one sbatch option");
  expect_input_error(run(fast_sweep("--grid parallelism.tp=1,2 --backend slurm '--slurm-option=--partition=a\tb'")),
                     "--slurm-option: \"--partition=a\\tb\" is not one sbatch option");
  // The directory's path goes into the job script unquoted: a line break there would be a command of its own.
  const auto injected = run(fast_sweep("--grid parallelism.tp=1,2 --backend slurm", "'out\ntouch pwned #'"));
  expect_input_error(injected, "--out: with --backend slurm the sweep directory's path may hold no line break");
  EXPECT_FALSE(fs::exists(dir_ / "out\ntouch pwned #"));
}

TEST_F(Sweep, AValueWrongInItselfOrAKeyVariedTwiceFailsTheSweepBeforeAnyRun) {
  // A value wrong in itself (its type, range or allowed names) is an error of the sweep even when other values run;
  // tp 3, which only the GPU count refuses, stays a row (InvalidCombinationIsARowWithTheRunsError).
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"--grid parallelism.tp=1,banana", "--grid parallelism.tp=banana: /parallelism/tp: expected an integer >= 1, got a string"},
      {"--grid parallelism.tp=1,2 --zip seed=1,2 --zip training.precision=bf16,fp9",
       "--zip training.precision=fp9: /training/precision: unknown value \"fp9\""},
      {"--grid strategies.pipeline_schedule.name=1f1b,1f1bb",
       "--grid strategies.pipeline_schedule.name=1f1bb: /strategies/pipeline_schedule/name: unknown value"},
      {"--grid hardware=A100-SXM4-80GB,H1000", "--grid hardware=H1000: /hardware/preset: unknown preset \"H1000\""},
      {"--grid parallelism.tp=1,null", "--grid parallelism.tp=null: /parallelism/tp: null is not a value"},
      // A key inside another varied key: each point's two values would overwrite each other, and its row show both.
      {"--grid training.recompute=full,none --grid training=1,2",
       "--grid training: varies a key that --grid training.recompute varies too"},
      {"--grid parallelism.tp=1,1", "--grid parallelism.tp=1: the value is listed twice"},
      {"--zip parallelism.tp=1,2,1 --zip parallelism.pp=1,1,1", "--zip parallelism.tp=1: the zipped point is listed twice"},
      // A field the software preset also defaults went through another check, which lost the value error's kind.
      {"--set training.zero_stage=1 --grid parallelism.tp=1,banana",
       "--grid parallelism.tp=banana: /parallelism/tp: expected an integer >= 1, got a string"}};
  for (const auto& [axes, message] : cases) expect_input_error(run(fast_sweep(axes)), message);
  expect_input_error(run(fast_sweep("--grid parallelism.tp=1,2", "/proc/llmsim-sweep")),
                     "--out /proc/llmsim-sweep: cannot create the sweep directory (");
}

TEST_F(Sweep, APointWhoseSummaryIsLostIsFailedAndRedoneOnTheNextRun) {
  ASSERT_EQ(run(fast_sweep("--grid parallelism.tp=1,2")).code, 0);
  const auto ids = marked();
  ASSERT_EQ(ids.size(), 2u);
  const fs::path summary = runs() / *ids.begin() / "summary.json";
  const std::string whole = read_file(summary);
  std::ofstream(summary) << whole.substr(0, whole.size() / 2);  // truncated
  const auto collected = run("sweep collect out");
  EXPECT_EQ(collected.code, 1);
  EXPECT_NE(collected.out.find("2 points: 1 ok, 0 invalid, 1 failed"), std::string::npos) << collected.out;
  const auto rows = jsonl(dir_ / "out" / "results.jsonl");
  EXPECT_EQ(rows[0]["status"], "failed");
  EXPECT_NE(rows[0]["error"].get<std::string>().find("summary.json is missing or unreadable"), std::string::npos);
  const auto again = run(fast_sweep("--grid parallelism.tp=1,2"));
  EXPECT_EQ(again.code, 0) << again.err;
  json redone = json::parse(read_file(summary)), before = json::parse(whole);
  redone.erase("wall_time_s"), before.erase("wall_time_s");
  EXPECT_EQ(redone, before);  // the same deterministic run, redone
}

TEST_F(Sweep, APresetEditedSinceAPointRanRunsThePointAgain) {
  // A copy of the presets; the model of default.json (gpt-1.7b) is made twice as wide between two runs: results.csv
  // held iteration times of both models (a probe).
  const fs::path configs = dir_ / "configs";
  fs::copy(source("configs"), configs, fs::copy_options::recursive);
  const char* previous = std::getenv("LLMSIM_CONFIG_DIR");
  const std::string restore = previous ? previous : "";
  ::setenv("LLMSIM_CONFIG_DIR", configs.c_str(), 1);
  ASSERT_EQ(run(fast_sweep("--grid parallelism.tp=1,2")).code, 0);
  const auto ids = marked();
  const json first = json::parse(read_file(runs() / *ids.begin() / "summary.json"));
  const fs::path preset = configs / "models" / "gpt-1.7b.json";
  json model = json::parse(read_file(preset));
  model["hidden"] = 2 * model["hidden"].get<int>();
  std::ofstream(preset) << model.dump(2);
  const auto again = run(fast_sweep("--grid parallelism.tp=1,2"));
  previous ? ::setenv("LLMSIM_CONFIG_DIR", restore.c_str(), 1) : ::unsetenv("LLMSIM_CONFIG_DIR");
  EXPECT_EQ(again.code, 0) << again.err;
  EXPECT_NE(again.err.find("resolves differently than when it ran (a preset changed): run again"), std::string::npos)
      << again.err;
  const json second = json::parse(read_file(runs() / *ids.begin() / "summary.json"));
  EXPECT_GT(second["iteration_time_s"].get<double>(), 1.5 * first["iteration_time_s"].get<double>());
}

TEST_F(Sweep, ChangedDefinitionAgainstAnExistingDirectoryIsAnError) {
  ASSERT_EQ(run(fast_sweep("--grid parallelism.tp=1,2")).code, 0);
  const std::string table = read_file(dir_ / "out" / "results.csv");
  const auto r = run(fast_sweep("--grid parallelism.tp=1,4"));
  EXPECT_EQ(r.code, 2);
  EXPECT_EQ(r.err, "error: --out " + (dir_ / "out").string() + ": holds a different sweep: --grid axis 1 is "
                   "parallelism.tp=1,2 in the existing sweep, now parallelism.tp=1,4 (rerun the same definition to "
                   "resume, or use another --out)\n");
  EXPECT_EQ(read_file(dir_ / "out" / "results.csv"), table);
}

TEST_F(Sweep, SweepFileAndZipGiveTheSamePointsAsTheCommandLine) {
  const std::string file = write("sweep.json", json::parse(R"({
      "grid": {"parallelism.tp": [1, 2]},
      "zip": {"training.micro_batch": [1, 2], "strategies.pipeline_schedule.name": ["gpipe", "1f1b"]},
      "set": {"training.global_batch": 32}})"));
  const auto r = run(fast_sweep("--sweep-file " + file));
  ASSERT_EQ(r.code, 0) << r.err;
  const auto rows = jsonl(dir_ / "out" / "results.jsonl");
  ASSERT_EQ(rows.size(), 4u);
  const json want = json::parse(R"([[1, 1, "gpipe"], [1, 2, "1f1b"], [2, 1, "gpipe"], [2, 2, "1f1b"]])");
  for (size_t i = 0; i < 4; ++i) {
    EXPECT_EQ(rows[i]["parallelism.tp"], want[i][0]);
    EXPECT_EQ(rows[i]["training.micro_batch"], want[i][1]);
    EXPECT_EQ(rows[i]["strategies.pipeline_schedule.name"], want[i][2]);
    EXPECT_EQ(rows[i]["status"], "ok");
  }
  // global_batch 32 from the file's "set": tp 2 (dp 4) with micro-batch 2 has 32 / (4 * 2) = 4 micro-batches.
  EXPECT_EQ(rows[3]["parallelism.micro_batches"], 4);
  const auto cli = run(fast_sweep("--set training.global_batch=32 --grid parallelism.tp=1,2 "
                                  "--zip training.micro_batch=1,2 --zip strategies.pipeline_schedule.name=gpipe,1f1b",
                                  "cli"));
  ASSERT_EQ(cli.code, 0) << cli.err;
  const auto cli_rows = jsonl(dir_ / "cli" / "results.jsonl");
  for (size_t i = 0; i < 4; ++i) EXPECT_EQ(cli_rows[i]["tokens_per_s"], rows[i]["tokens_per_s"]) << i;
}

TEST_F(Sweep, ZippedListsRepeatValuesInDistinctPoints) {
  const auto r = run(fast_sweep("--zip parallelism.tp=1,2,2 --zip parallelism.pp=1,1,2"));
  ASSERT_EQ(r.code, 0) << r.err;
  const auto rows = jsonl(dir_ / "out" / "results.jsonl");
  ASSERT_EQ(rows.size(), 3u);
  EXPECT_EQ(rows[2]["parallelism.tp"], 2);
  EXPECT_EQ(rows[2]["parallelism.pp"], 2);
}

TEST_F(Sweep, AResumedSweepWhosePlanIsMissingWritesItAgain) {
  ASSERT_EQ(run(fast_sweep("--grid parallelism.tp=1,2")).code, 0);
  fs::remove(dir_ / "out" / "points.jsonl");
  const auto again = run(fast_sweep("--grid parallelism.tp=1,2"));
  EXPECT_EQ(again.code, 0) << again.err;
  EXPECT_NE(again.err.find("resuming"), std::string::npos) << again.err;
  EXPECT_EQ(jsonl(dir_ / "out" / "results.jsonl").size(), 2u);
}

TEST_F(Sweep, ADamagedPlanNamesItsLine) {
  // points.jsonl holds one JSON text per line: an error names the file's line, not the position in that line.
  ASSERT_EQ(run(fast_sweep("--grid parallelism.tp=1,2", "sw")).code, 0);
  std::ofstream(dir_ / "sw" / "points.jsonl", std::ios::app) << "garbage\n";
  expect_input_error(run("sweep collect sw"), (dir_ / "sw" / "points.jsonl").string() + ":3: malformed JSON");
}

TEST_F(Sweep, APlanMissingItsLastPointsIsAnErrorNotAShorterTable) {
  // Cut at a line boundary, the plan was trusted: collect and a resumed sweep rewrote results with fewer rows.
  ASSERT_EQ(run(fast_sweep("--grid parallelism.tp=1,2,4", "sw")).code, 0);
  const std::string plan = (dir_ / "sw" / "points.jsonl").string();
  write("sw/points.jsonl", lines(read_file(plan)).front() + "\n");
  const std::string why = plan + ": 1 points where sweep.json defines 3";
  expect_input_error(run("sweep collect sw"), why);
  expect_input_error(run(fast_sweep("--grid parallelism.tp=1,2,4", "sw")), why);
  EXPECT_EQ(jsonl(dir_ / "sw" / "results.jsonl").size(), 3u);  // the results of the complete sweep are kept
}

TEST_F(Sweep, ASweepFilesAxisIsNamedByItsPlaceInTheFile) {
  const std::string file = write("sweep.json", json::parse(R"({"grid": {"parallelism.tp": [1, -2]}})"));
  expect_input_error(run(fast_sweep("--sweep-file " + file)),
                     file + ": /grid/parallelism.tp/1: /parallelism/tp: value -2 is out of range");
  // Set first, a key inside a varied one would be replaced by the varied value.
  const std::string set = write("set.json", json::parse(
      R"({"grid": {"training.recompute": ["full", "none"]}, "set": {"training.recompute.x": 1}})"));
  expect_input_error(run(fast_sweep("--sweep-file " + set)),
                     set + ": /set/training.recompute.x: the key is also varied by " + set + ": /grid/training.recompute");
  const std::string zip = write("zip.json", json::parse(R"({"zip": {"seed": [1, 2], "training.micro_batch": [1]}})"));
  expect_input_error(run(fast_sweep("--sweep-file " + zip)),
                     zip + ": /zip/training.micro_batch: has 1 values but " + zip + ": /zip/seed has 2");
}

}  // namespace
}  // namespace llmsim::test
