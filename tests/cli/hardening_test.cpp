// One test per class of bad input that issue 14 found accepted, crashing or hanging: each must be exit 2 with
// one line "error: <path>: ..." and nothing written, from `validate` as from `run`.
#include <sys/stat.h>
#include <sys/wait.h>

#include <cstdlib>

#include "../support/cli.hpp"

namespace {
using namespace llmsim::test;
using nlohmann::json;

class Hardening : public Cli {
 protected:
  /// `validate` and `run` of `j` both fail with one line starting "error: <prefix>" and write nothing.
  Result expect_rejected(const json& j, const std::string& prefix) { return expect_rejected_text(j.dump(2), prefix); }
  Result expect_rejected_text(const std::string& text, const std::string& prefix) {
    const std::string file = write("s.json", text);
    expect_input_error(run("validate '" + file + "'"), prefix);
    const auto r = run("run '" + file + "' --out out");
    expect_input_error(r, prefix);
    return r;
  }
  std::string file() const { return (dir_ / "s.json").string(); }
  static json scenario(const std::string& shipped) { return json::parse(read_file(source(shipped))); }
};

// ---------------------------------------------------------------- exit 1 instead of 2

TEST_F(Hardening, LongPresetNamesAreUnknownPresets) {
  const std::string name(300, 'x');
  for (const char* section : {"hardware", "model"}) {
    json j = default_json();
    j[section] = name;
    const auto r = expect_rejected(j, std::string("/") + section + "/preset: unknown preset \"" + name + "\"");
    EXPECT_NE(r.err.find("one of: "), std::string::npos) << r.err;
  }
  json j = default_json();
  j["cluster"]["preset"] = name;
  expect_rejected(j, "/cluster/preset: unknown preset");
}

TEST_F(Hardening, PresetNamesNeverReachTheFileSystem) {
  json j = default_json();
  j["hardware"] = "../hardware/A100-SXM4-80GB";  // a path that exists, but not a preset name
  expect_rejected(j, "/hardware/preset: unknown preset \"../hardware/A100-SXM4-80GB\"");
}

TEST_F(Hardening, LongFaultTracePathIsOneLine) {
  json j = scenario("scenarios/faults/mecefo-350m.json");
  j["faults"]["process"] = {{"name", "trace"}, {"file", std::string(300, 'f') + ".csv"}};
  expect_rejected(j, "/faults/process/file: file name too long");
}

// ---------------------------------------------------------------- work estimate

TEST_F(Hardening, HugeGlobalBatchIsRefusedBeforeTheRun) {
  json j = default_json();
  j["training"]["global_batch"] = 1e9;  // dp 4, micro-batch 1: 2.5e8 micro-batches per pipeline
  const auto r = expect_rejected(j, "/training/global_batch: the run would be 16 GPUs, ");
  EXPECT_NE(r.err.find("at most 131072 GPUs, 200000000 ops"), std::string::npos) << r.err;
}

TEST_F(Hardening, OverflowingNumbersOnTheCommandLineAreNotStrings) {
  // 1e999 is a number too large for a double, not a word: the error says so instead of "got a string".
  expect_input_error(run("validate '" + source("scenarios/default.json") + "' --set training.global_batch=1e999"),
                     "--set training.global_batch=1e999: malformed JSON at line 1, column 5: number overflow");
}

TEST_F(Hardening, MillionGpusAreRefusedNamingTheCluster) {
  json j = default_json();
  j["cluster"]["nodes"] = 125000;  // 10^6 GPUs
  j["training"]["global_batch"] = 500000;  // dp 250,000: 2 micro-batches per pipeline
  expect_rejected(j, "/cluster/nodes: the run would be 1e+06 GPUs");
}

TEST_F(Hardening, ValidateReportsTheWorkAndMemory) {
  auto ops_of = [&](const std::string& set) {
    const auto r = run("validate '" + source("scenarios/default.json") + "' " + set);
    EXPECT_EQ(r.code, 0) << r.err;
    EXPECT_NE(r.err.find("(tp 2, pp 2, dp 4; 16 GPUs, about "), std::string::npos) << r.err;
    EXPECT_NE(r.err.find(" of 80.0 GiB per GPU)"), std::string::npos) << r.err;
    return std::stod(r.err.substr(r.err.find("about ") + 6));
  };
  // 16 more micro-batches per pipeline (global batch 64 -> 128, dp 4): each of the 8 workers (tp 2) runs, per
  // iteration (2) and model chunk (interleaved, 2 per stage), a forward and a backward compute and 3 transfers
  // on average (4 chunk-stages in a chain have 3 boundaries, each a send and a receive both ways: 12 / 4).
  EXPECT_EQ(ops_of("--set training.global_batch=128") - ops_of(""), 8 * 2 * 16 * 2 * (2 + 3));
}

// ---------------------------------------------------------------- checks that lived only in run

TEST_F(Hardening, FaultJobThatDoesNotFitIsInputError) {
  json j = scenario("scenarios/faults/mecefo-350m.json");
  j["hardware"] = {{"preset", "A100-SXM4-80GB"}, {"memory_GiB", 1}};
  const auto r = expect_rejected(j, "/faults: the failure-free job does not fit in memory (peak ");
  EXPECT_NE(r.err.find("of 1.0 GiB per GPU"), std::string::npos) << r.err;
}

TEST_F(Hardening, AnOverlongFailureTimelineNamesWhatMakesIt) {
  // 480 h at a 0.36 s checkpoint interval (the shortest allowed): 4.8e6 checkpoints x 4 nodes, over 10^7
  // node-steps; the interval, not the horizon, is what to change. 10 years of a failure every 0.1 h
  // (876,000 failures, 3 events each on 4 nodes: 1.05e7) and no checkpoints name the horizon.
  json j = scenario("scenarios/faults/mecefo-350m.json");
  j["faults"]["horizon_h"] = 480;
  j["strategies"]["fault_tolerance"] = {{"name", "checkpoint-restart"}, {"interval_h", 1e-4}};
  expect_rejected(j, "/strategies/fault_tolerance/interval_h: the failure timeline would be about 1.9e+07 node-steps");
  j = scenario("scenarios/faults/mecefo-350m.json");
  j["faults"]["horizon_h"] = 87600;
  j["faults"]["process"] = {{"name", "exponential"}, {"mtbf_h", 0.1}, {"repair_h", 0.001}};
  expect_rejected(j, "/faults/horizon_h: the failure timeline would be about ");
}

TEST_F(Hardening, AServingRunTooLongForItsKvUsageBucketsNamesSampleS) {
  // 50 requests at 1e-5 requests/s: a makespan of about 4e6 s, 1.6e8 rows of 0.1 s of kv_usage.csv on 4 replicas;
  // refused after the simulation, before anything is written (a probe saw a 1.2 GB file).
  const auto r = run("run '" + source("scenarios/regression/serving-vllm.json") +
                     "' --out out --set serving.max_requests=50 --set serving.workload.rate_rps=1e-5 "
                     "--set serving.sample_s=0.1");
  expect_input_error(r, "/serving/sample_s: kv_usage.csv would hold ");
}

TEST_F(Hardening, RequestsArrivingPastTheLimitFailValidate) {
  // A denormal rate put every arrival at infinity and aborted SimGrid (a probe); 1e-6 requests/s puts the 50th at
  // about 4e7 s, beyond the 1e7 s a serving run takes.
  json j = scenario("scenarios/regression/serving-vllm.json");
  j["serving"]["workload"]["rate_rps"] = 1e-320;
  expect_rejected(j, "/serving/workload: request 0 arrives at inf s (after serving.rate_scale 1); at most 10000000 s");
  j = scenario("scenarios/regression/serving-vllm.json");
  j["serving"]["max_requests"] = 50;
  j["serving"]["workload"]["rate_rps"] = 1e-6;
  expect_rejected(j, "/serving/workload: request ");
}

TEST_F(Hardening, ServingWeightsBeyondTheGpuFailValidate) {
  json j = scenario("scenarios/regression/serving-vllm.json");
  j["parallelism"]["tp"] = 1;  // llama2-70b in fp16: 138 GB of weights on one 80 GiB GPU
  expect_rejected(j, "/serving/kv_cache/memory_utilization: no room for a KV block");
}

TEST_F(Hardening, SwapPreemptionWithoutHostMemoryFailsValidate) {
  // It ran exactly as recompute, without a word (a probe).
  json j = scenario("scenarios/regression/serving-vllm.json");
  j["serving"]["kv_cache"]["preemption"] = "swap";
  j["serving"]["kv_cache"]["swap_space_GiB"] = 0;
  expect_rejected(j, "/serving/kv_cache/swap_space_GiB: swap preemption copies KV blocks to host memory");
}

TEST_F(Hardening, AnEnginePresetGivenAsPresetNamesTheKeyItTakes) {
  json j = scenario("scenarios/regression/serving-vllm.json");
  j["serving"]["engine"] = {{"preset", "vllm-2023"}};
  expect_rejected(j, "/serving/engine/preset: unknown key: the engine preset is given as \"name\"");
}

TEST_F(Hardening, Ns3TrainingFailsValidate) {
  json j = default_json();
  j["network"] = {{"model", "ns-3"}};
  expect_rejected(j, "/network/model:");
}

TEST_F(Hardening, TrainingOomIsAResultNotAnError) {
  const auto r = run("validate '" + source("scenarios/pipeline/oom-gpt-145.6b-on-16-gpus.json") + "'");
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.err.find("does not fit, a run reports status oom"), std::string::npos) << r.err;
}

// ---------------------------------------------------------------- one line, whatever the input holds

TEST_F(Hardening, ControlCharactersAreEscaped) {
  json j = default_json();
  j["training"]["recompute"] = "full\nsecond line\x01";
  auto r = expect_rejected(j, "/training/recompute: unknown value \"full\\nsecond line\\x01\"");
  j = default_json();
  j["model"] = "gpt\t1.7b\r";
  expect_rejected(j, "/model/preset: unknown preset \"gpt\\t1.7b\\r\"");
  const auto missing = run("run 'no\nsuch.json' --out out");
  expect_input_error(missing, "no\\nsuch.json: does not exist");
}

TEST_F(Hardening, NumbersArePrintedAsWritten) {
  json j = default_json();
  j["cluster"]["nodes"] = 1000001;
  expect_rejected(j, "/cluster/nodes: value 1000001 is out of range (an integer >= 1 and <= 1000000)");
  std::string text = default_json().dump();
  text.replace(text.find("\"nodes\":2"), 9, "\"nodes\":-9223372036854775809");
  expect_rejected_text(text, file() + ": integer -9223372036854775809 at /cluster/nodes is beyond 64 bits");
}

// ---------------------------------------------------------------- nothing accepted silently

TEST_F(Hardening, DuplicateKeysAreRejected) {
  std::string text = default_json().dump();
  text.replace(text.find("\"nodes\":2"), 9, "\"nodes\":2,\"nodes\":4");
  expect_rejected_text(text, file() + ": key \"nodes\" appears twice in /cluster");
}

TEST_F(Hardening, BytesAfterTheDocumentAreRejected) {
  const std::string text = default_json().dump();
  expect_rejected_text(text + std::string(1, '\0'), file() + ": malformed JSON at line 1, column " +
                                                        std::to_string(text.size() + 1) + ": a NUL byte");
  expect_rejected_text(text + " {}", file() + ": malformed JSON at line 1");
}

TEST_F(Hardening, NullIsNeverAValue) {
  json j = default_json();
  j["cluster"]["bogus"] = nullptr;  // merged into the preset, a null would vanish
  expect_rejected(j, "/cluster/bogus: null is not a value");
  j = default_json();
  j["cluster"]["nic_latency_us"] = nullptr;  // ... and fall back to the preset's value
  expect_rejected(j, "/cluster/nic_latency_us: null is not a value");
  j = default_json();
  j["cluster"]["topology"] = {{"name", "fat-tree"}, {"bogus", nullptr}};
  expect_rejected(j, "/cluster/topology/bogus: null is not a value");
  expect_input_error(run("validate '" + source("scenarios/default.json") + "' --set training.iterations=null"),
                     "/training/iterations: null is not a value");
}

TEST_F(Hardening, LatencyHasAPhysicalBound) {
  json j = default_json();
  j["cluster"]["nic_latency_us"] = 1e12;
  expect_rejected(j, "/cluster/nic_latency_us: value 1000000000000 is out of range (a number >= 0 and <= 10000000 (us))");
}

// ---------------------------------------------------------------- files that never end

TEST_F(Hardening, FileFieldsTakeRegularFilesOnly) {
  ASSERT_EQ(::mkfifo((dir_ / "fifo").c_str(), 0600), 0);
  const std::string fifo = (dir_ / "fifo").string();
  json j = scenario("scenarios/faults/mecefo-350m.json");
  j["faults"]["process"] = {{"name", "trace"}, {"file", "/dev/zero"}};
  expect_rejected(j, "/faults/process/file: /dev/zero is a character device (expected a regular file)");
  j["faults"]["process"]["file"] = fifo;
  expect_rejected(j, "/faults/process/file: " + fifo + " is a FIFO (expected a regular file)");

  j = scenario("scenarios/regression/serving-vllm.json");
  j["serving"]["workload"] = {{"name", "azure-trace"}, {"trace", fifo}};
  expect_rejected(j, "/serving/workload/trace: " + fifo + " is a FIFO");

  j = scenario("scenarios/moe/olmoe-ep8-a100.json");
  j["routing"] = {{"name", "coactivation"}, {"file", "/dev/zero"}};
  expect_rejected(j, "/routing/file: /dev/zero: is a character device");
  expect_input_error(run("validate " + fifo), fifo + ": is a FIFO (expected a regular file)");
}

TEST_F(Hardening, FileSizeLimitIsNamed) {
  const std::string big = (dir_ / "big.json").string();
  std::ofstream(big) << std::string(17 * 1024 * 1024, ' ') << "{}";
  expect_input_error(run("validate '" + big + "'"), big + ": is 17 MiB, more than the 16 MiB");
}

}  // namespace

namespace {
// ---------------------------------------------------------------- found by the second probe (2026-12-03)

TEST_F(Hardening, CollectiveSizesAreDecimalAndAtLeastOneByte) {
  const std::string bench = "bench-collective '" + source("scenarios/default.json") + "' --collective all-reduce ";
  for (const char* bad : {"nan", "0.5", "0x10", "inf", "1e-300"})
    expect_input_error(run(bench + "--max " + bad), std::string("--max: \"") + bad + "\" is not a size of at least one byte");
  expect_input_error(run(bench + "--max 1K --factor nan"), "--factor: ");
  expect_input_error(run(bench + "--max 1K --csv ''"), "--csv: an empty file name");
  expect_input_error(run(bench + "--max 1K --algorithm ring --window 3"), "--window: the ring algorithm has no peers");
}

TEST_F(Hardening, AllReducesBelowOneBytePerRankCostWhatOneByteDoes) {
  // 1 B over 16 ranks is 1/16 B per ring chunk: truncated to empty messages it took 336.5 us against 75 us at 8 B
  // (ring) and 151 against 20 us (tree). Every message now carries at least one byte: the latency floor.
  const std::string bench = "bench-collective '" + source("scenarios/default.json") +
                            "' --collective all-reduce --min 1 --max 8 --factor 8 --csv sizes.csv --algorithm ";
  for (const char* algorithm : {"ring", "tree"}) {
    ASSERT_EQ(run(bench + algorithm).code, 0) << algorithm;
    const auto rows = lines(read_file(dir_ / "sizes.csv"));
    ASSERT_EQ(rows.size(), 3u) << algorithm;  // header, 1 B, 8 B
    const auto time_of = [](const std::string& row) {  // the time column: size_bytes,algorithm,time_s,...
      const size_t a = row.find(','), b = row.find(',', a + 1);
      return std::stod(row.substr(b + 1, row.find(',', b + 1) - b - 1));
    };
    EXPECT_NEAR(time_of(rows[1]), time_of(rows[2]), 1e-9) << algorithm << ": " << rows[1] << " vs " << rows[2];
  }
}

TEST_F(Hardening, AnAlgorithmThatCannotRunSaysWhatItNeeds) {
  // A100 has no reducing NVSwitch: in-switch needs one, within one node (it said only "cannot run").
  expect_input_error(run("bench-collective '" + source("scenarios/default.json") + "' --algorithm in-switch --max 1K"),
                     "--algorithm: in-switch cannot run all-reduce on 16 ranks here: it needs an all-reduce within one "
                     "node whose switch reduces");
  json j = default_json();
  j["network"] = {{"collective_algorithm", "halving-doubling"}, {"model", "CM02"}};
  j["cluster"]["nodes"] = 3;  // dp 6
  j["training"]["global_batch"] = 72;
  expect_rejected(j, "/network/collective_algorithm: \"halving-doubling\" cannot run the all-reduce of the 6 "
                     "data-parallel ranks: it needs an all-reduce, reduce-scatter or all-gather on a power-of-two");
}

TEST_F(Hardening, OutNamingASymbolicLinkIsRefusedBeforeSimulating) {
  // A dangling link as --out was simulated whole, then failed to be replaced with a raw rename error naming the
  // staging directory; a link to a directory would have been replaced by the output (the target left as it was).
  fs::create_symlink("nowhere", dir_ / "dangling");
  fs::create_directories(dir_ / "target");
  fs::create_symlink("target", dir_ / "linked");
  for (const std::string link : {"dangling", "linked"}) {
    const auto r = run("run '" + source("scenarios/default.json") + "' --out " + link);
    expect_input_error(r, "--out " + link + ": is a symbolic link");
    EXPECT_TRUE(fs::is_symlink(dir_ / link)) << link;
  }
}

TEST_F(Hardening, BenchCsvReplacesOnlyARegularFileAndWritesThroughALink) {
  // It replaced /dev/full, FIFOs and symbolic links with a regular file, and the scenario itself (a probe).
  const std::string bench = "bench-collective '" + source("scenarios/default.json") + "' --min 1K --max 2K --csv ";
  ASSERT_EQ(::mkfifo((dir_ / "fifo.csv").c_str(), 0600), 0);
  expect_input_error(run(bench + "fifo.csv"), "--csv: fifo.csv: is a FIFO, not a regular file to replace");
  EXPECT_TRUE(fs::is_fifo(dir_ / "fifo.csv"));
  fs::copy_file(source("scenarios/default.json"), dir_ / "scenario.json");
  expect_input_error(run("bench-collective scenario.json --min 1K --max 2K --csv scenario.json"),
                     "--csv: scenario.json is the scenario itself");
  fs::create_symlink("scenario.json", dir_ / "to-scenario.csv");  // nor through a link
  expect_input_error(run("bench-collective scenario.json --min 1K --max 2K --csv to-scenario.csv"),
                     "--csv: to-scenario.csv is the scenario itself");
  fs::create_symlink("target.csv", dir_ / "link.csv");  // dangling until written through
  ASSERT_EQ(run(bench + "link.csv").code, 0);
  EXPECT_TRUE(fs::is_symlink(dir_ / "link.csv"));
  EXPECT_EQ(lines(read_file(dir_ / "target.csv")).size(), 3u);  // header, 1K, 2K
  fs::permissions(dir_ / "target.csv", fs::perms::owner_read | fs::perms::owner_write);  // replaced, kept 0600
  ASSERT_EQ(run(bench + "link.csv").code, 0);
  EXPECT_EQ(fs::status(dir_ / "target.csv").permissions(), fs::perms::owner_read | fs::perms::owner_write);
  fs::create_symlink("loop-b.csv", dir_ / "loop-a.csv");
  fs::create_symlink("loop-a.csv", dir_ / "loop-b.csv");
  expect_input_error(run(bench + "loop-a.csv"),
                     "--csv: loop-a.csv: cannot follow the link (a loop of symbolic links)");
}

TEST_F(Hardening, AnUnwritableStandardOutputOrPathIsExitTwo) {
  const fs::path err = dir_ / "full.err";
  // validate prints the resolved scenario: unwritten, the scenario is not reported "ok" (it was, then an error).
  for (const std::string& command : std::vector<std::string>{"schema", "validate '" + source("scenarios/default.json") + "'"}) {
    const int status =
        std::system(("'" + std::string(LLMSIM_BINARY) + "' " + command + " >/dev/full 2>'" + err.string() + "'").c_str());
    EXPECT_EQ(WIFEXITED(status) ? WEXITSTATUS(status) : -1, 2) << command;
    EXPECT_EQ(read_file(err), "error: standard output: cannot write (No space left on device)\n") << command;
  }
  // A folder that cannot be made (a file is in its way): the filesystem's reason and the path, exit 2.
  write("blocker", "x");
  const auto r = run("sweep '" + source("scenarios/default.json") + "' --grid seed=1,2 --out blocker/sweep");
  EXPECT_EQ(r.code, 2) << r.err;
  EXPECT_EQ(lines(r.err).size(), 1u) << r.err;
  EXPECT_NE(r.err.find("blocker/sweep"), std::string::npos) << r.err;
}

TEST_F(Hardening, AnUnknownCommandOrConfigDirectoryIsNamed) {
  expect_input_error(run("frobnicate"), "frobnicate: unknown command (one of: run, validate, ");
  const fs::path err = dir_ / "config.err";
  const int status = std::system(("LLMSIM_CONFIG_DIR=/nonexistent '" + std::string(LLMSIM_BINARY) + "' list models 2>'" +
                                  err.string() + "'").c_str());
  EXPECT_EQ(WIFEXITED(status) ? WEXITSTATUS(status) : -1, 2);
  EXPECT_EQ(read_file(err).rfind("error: LLMSIM_CONFIG_DIR: /nonexistent is not a configs directory", 0), 0u) << read_file(err);
}

}  // namespace
