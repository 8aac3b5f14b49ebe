// Runs under failures (run/fault_run.hpp) through the CLI: checkpoint-restart with one failure loses exactly the
// work since the last checkpoint and stalls exactly the restart time; with no failure no module but bamboo costs
// anything; a run is deterministic for its seed; bad failure input is a clear error.
#include <cmath>

#include "../support/cli.hpp"
#include "../support/scenarios.hpp"

namespace {
using namespace llmsim::test;

class FaultRun : public Cli {
 protected:
  /// Runs mecefo-350m for `hours` with the failures of `trace` (CSV rows after the header) and `sets`.
  json summary(const std::string& trace, double hours, const std::vector<std::string>& sets, int* code = nullptr) {
    const std::string file = "trace-" + std::to_string(runs_) + ".csv", out = "run-" + std::to_string(runs_++);
    std::ofstream(dir_ / file) << "time_h,node,duration_h\n" << trace;
    std::string cmd = "run '" + source("scenarios/faults/mecefo-350m.json") + "' --out " + out +
                      " --set 'faults={\"process\": {\"name\": \"trace\", \"file\": \"" + (dir_ / file).string() +
                      "\"}, \"horizon_h\": " + std::to_string(hours) + "}'";
    for (const auto& s : sets) cmd += " --set '" + s + "'";
    const auto r = run(cmd);
    if (code) *code = r.code;
    if (r.code != 0) return json{{"error", r.err}};
    return json::parse(read_file(dir_ / out / "summary.json"));
  }
  int runs_ = 0;
};
}  // namespace

TEST_F(FaultRun, CheckpointRestartLosesTheWorkSinceTheLastCheckpointAndStallsTheRestart) {
  const auto s = summary("1.0,1,0.5\n", 2.0,
                         {"strategies.fault_tolerance={\"name\": \"checkpoint-restart\", \"interval_h\": 0.25, "
                          "\"storage_GBps\": 50, \"restart_s\": 600}"});
  ASSERT_TRUE(s.contains("faults")) << s.dump();
  const auto& f = s["faults"];
  const double T = s["iteration_time_s"];
  // LLaMA 350M: 24 layers of 4 h^2 + 3 h f parameters, embeddings and head 2 V h, norms (2L + 1) h; bf16 weights
  // and fp32 master + Adam moments: 14 bytes per parameter, written at 50 GB/s.
  const double h = 1024, ff = 2736, V = 32000;
  const double params = 24 * (4 * h * h + 3 * h * ff + 2 * h) + 2 * V * h + h;
  const double write = params * 14 / 50e9;
  const double k = std::max(1.0, std::round(900 / T));  // iterations between checkpoints
  const double cycle = k * T + write, into = 3600 - std::floor(3600 / cycle) * cycle;
  const double lost = into < k * T ? into / T : k;  // in a write: that checkpoint never completed
  // The timeline's segments end on whole microseconds (its links carry one byte per microsecond): a few
  // microseconds over the eight segments before the failure.
  EXPECT_NEAR(f["lost_iterations"].get<double>(), lost, 10e-6 / T);
  EXPECT_NEAR(f["stall_h"].get<double>() * 3600, 600 + write + (into < k * T ? 0 : into - k * T), 10e-6);
  EXPECT_EQ(f["failures"].get<int>(), 1);
  // The time written is whole writes only (a write the failure cut is part of the stall above).
  EXPECT_NEAR(f["checkpoint_h"].get<double>() * 3600, f["checkpoints"].get<int>() * write, 10e-6);
}

TEST_F(FaultRun, OneTracedFailureGivesYoungDalyTheRunsLengthAsItsMeanGap) {
  // "auto" was 0 (never checkpoint) for a trace of one failure, whose mean gap was taken as infinite: the one
  // interval the trace shows is the run itself, sqrt(2 x write x 2 h) with the write of the test above.
  const auto s = summary("1.0,1,0.5\n", 2.0, {"strategies.fault_tolerance={\"name\": \"checkpoint-restart\", "
                                                "\"storage_GBps\": 50}"});
  ASSERT_TRUE(s.contains("faults")) << s.dump();
  const double h = 1024, ff = 2736, V = 32000;
  const double write = (24 * (4 * h * h + 3 * h * ff + 2 * h) + 2 * V * h + h) * 14 / 50e9;
  EXPECT_NEAR(s["faults"]["checkpoint_interval_s"].get<double>(), std::sqrt(2 * write * 7200), 1e-4);  // 38.5 s
  // A failure after the run does not count; two at one time give the run's length over two (a gap of 0 was
  // "never checkpoint" again).
  const std::string ft = "strategies.fault_tolerance={\"name\": \"checkpoint-restart\", \"storage_GBps\": 50}";
  EXPECT_NEAR(summary("1.0,1,0.5\n500.0,2,0.5\n", 2.0, {ft})["faults"]["checkpoint_interval_s"].get<double>(),
              std::sqrt(2 * write * 7200), 1e-4);
  EXPECT_NEAR(summary("1.0,1,0.5\n1.0,2,0.5\n", 2.0, {ft})["faults"]["checkpoint_interval_s"].get<double>(),
              std::sqrt(2 * write * 3600), 1e-4);
}

TEST_F(FaultRun, EveryCheckpointIsWrittenOnceAndCountedOnce) {
  // No failure in 2 h, a checkpoint every 0.25 h of training: every round(900 s / T) iterations the job writes its
  // states (14 bytes per parameter at 30 GB/s). A cycle is those iterations plus the write; the count is the
  // cycles that end within the horizon, and the time written is that count times one write (at 30 GB/s a write's
  // end fell half a microsecond short of its due time, and the rest was counted as a second checkpoint: 14, not 7).
  const auto s = summary("", 2.0, {"strategies.fault_tolerance={\"name\": \"checkpoint-restart\", \"interval_h\": 0.25, "
                                   "\"storage_GBps\": 30}"});
  ASSERT_TRUE(s.contains("faults")) << s.dump();
  const double T = s["iteration_time_s"], h = 1024, ff = 2736, V = 32000;
  const double write = (24 * (4 * h * h + 3 * h * ff + 2 * h) + 2 * V * h + h) * 14 / 30e9;
  const double cycle = std::round(900 / T) * T + write;
  const int expected = static_cast<int>(std::floor(7200 / cycle));
  EXPECT_EQ(s["faults"]["checkpoints"].get<int>(), expected);
  EXPECT_NEAR(s["faults"]["checkpoint_h"].get<double>() * 3600, expected * write, 1e-5);
}

TEST_F(FaultRun, WithoutFailuresOnlyBambooCostsAnything) {
  // Data parallel over 32 GPUs (pp 1): Bamboo's redundant forward F runs where the worker does not compute,
  // T - F - B: the 350M model's gradient all-reduce over the nodes' NICs exceeds F, so nothing shows either.
  for (const std::string module : {"none", "checkpoint-restart", "oobleck", "mecefo", "bamboo"}) {
    const auto s = summary("", 1.0, {"strategies.fault_tolerance=" + module});
    ASSERT_TRUE(s.contains("faults")) << module << s.dump();
    EXPECT_NEAR(s["faults"]["throughput_drop"].get<double>(), 0.0, 1e-12) << module;
  }
  // As a pipeline (pp 4, 16 micro-batches of 4): the successor's forward of every micro-batch, m f, beyond the
  // 1F1B bubble (p - 1)(f + b). With b >= 2 f (dgrad and wgrad) that is at most 16 f - 3 (3 f) = 7 f on an
  // iteration of at least (m + p - 1)(f + b) = 57 f: a drop above 0 and at most 7 / 64.
  const auto s = summary("", 1.0, {"strategies.fault_tolerance=bamboo", "parallelism.pp=4", "training.micro_batch=4"});
  ASSERT_TRUE(s.contains("faults")) << s.dump();
  EXPECT_GT(s["faults"]["throughput_drop"].get<double>(), 0.0);
  EXPECT_LE(s["faults"]["throughput_drop"].get<double>(), 7.0 / 64);
}

TEST(FaultModules, ThoseThatCarryOnOnOtherNodesNeedASecondNode) {
  // One node (8 GPUs, dp 8): Bamboo's predecessor, MeCeFO's neighbour and Oobleck's smaller template would all be
  // the failed node itself (Bamboo charged 13% redundancy for covering itself). Checkpoint-restart runs there.
  for (const std::string module : {"bamboo", "oobleck", "mecefo"}) {
    const auto e = llmsim::test::error_of([&] {
      llmsim::test::shipped("scenarios/faults/mecefo-350m.json",
                            {"cluster.nodes=1", "strategies.fault_tolerance=" + module});
    });
    EXPECT_EQ(e.path(), "/strategies/fault_tolerance") << module;
    EXPECT_NE(std::string(e.what()).find(module + " carries on without a failed node"), std::string::npos) << e.what();
  }
  EXPECT_NO_THROW(llmsim::test::shipped("scenarios/faults/mecefo-350m.json",
                                        {"cluster.nodes=1", "strategies.fault_tolerance=checkpoint-restart"}));
}

TEST(FaultModules, EveryModuleButNoneNeedsAFailureProcess) {
  // Without a failure process a run is a plain training run: the module would be accepted and ignored (Bamboo's
  // failure-free redundancy vanished). An empty failure trace is how to get a module's failure-free cost.
  for (const std::string module : {"checkpoint-restart", "bamboo", "oobleck", "mecefo"}) {
    const auto e = llmsim::test::error_of([&] {
      llmsim::test::shipped("scenarios/faults/mecefo-350m.json",
                            {"faults.process=none", "strategies.fault_tolerance=" + module});
    });
    EXPECT_EQ(e.path(), "/strategies/fault_tolerance") << module;
    EXPECT_NE(std::string(e.what()).find("faults.process is \"none\""), std::string::npos) << e.what();
  }
  EXPECT_NO_THROW(llmsim::test::shipped("scenarios/faults/mecefo-350m.json",
                                        {"faults.process=none", "strategies.fault_tolerance=none"}));
}

TEST_F(FaultRun, ARunIsDeterministicForItsSeed) {
  const std::string process = "faults={\"process\": \"mecefo-high\", \"horizon_h\": 6}";
  const auto a = summary("", 1, {process, "seed=7"}), b = summary("", 1, {process, "seed=7"}),
             c = summary("", 1, {process, "seed=8"});
  EXPECT_EQ(a["faults"], b["faults"]);
  EXPECT_NE(a["faults"]["effective_tokens_per_s"], c["faults"]["effective_tokens_per_s"]);
}

TEST_F(FaultRun, AMalformedTraceLineNamesTheFileAndLine) {
  int code = 0;
  const auto s = summary("0.5,1,0.2\n0.7,x,0.1\n", 1, {}, &code);
  EXPECT_EQ(code, 2);
  const std::string err = s["error"];
  EXPECT_NE(err.find(".csv:3:"), std::string::npos) << err;
  EXPECT_NE(err.find("\"x\" is not a finite decimal number"), std::string::npos) << err;
}

TEST_F(FaultRun, AFailureOfANodeThatDoesNotExistIsAnError) {
  int code = 0;
  const auto s = summary("0.5,4,0.2\n", 1, {}, &code);
  EXPECT_EQ(code, 2);
  EXPECT_NE(s["error"].get<std::string>().find("has 4 nodes"), std::string::npos) << s.dump();
}

TEST_F(FaultRun, ANicFailureCutsTheNodeOffLikeANodeFailure) {
  const std::string module =
      "strategies.fault_tolerance={\"name\": \"checkpoint-restart\", \"interval_h\": 0.25, \"restart_s\": 600}";
  const auto node = summary("1.0,2,0.5,node\n", 2.0, {module}), nic = summary("1.0,2,0.5,nic\n", 2.0, {module});
  ASSERT_TRUE(nic.contains("faults")) << nic.dump();
  EXPECT_EQ(nic["faults"]["failures"].get<int>(), 1);
  EXPECT_GT(nic["faults"]["lost_iterations"].get<double>(), 0.0);
  EXPECT_EQ(nic["faults"], node["faults"]);
}

TEST_F(FaultRun, FailuresAtTheSameInstantAreAllSeen) {
  // All four nodes fail at 1 h, and node 0 again the instant it is back (3 h): five failures, none lost.
  const auto s = summary("1,0,2\n1,1,2\n1,2,2\n1,3,2\n3,0,1\n", 4.0, {"strategies.fault_tolerance=oobleck"});
  ASSERT_TRUE(s.contains("faults")) << s.dump();
  EXPECT_EQ(s["faults"]["failures"].get<int>(), 5);
}

TEST_F(FaultRun, AFileWithoutHeaderIsAnError) {
  int code = 0;
  const std::string file = (dir_ / "noheader.csv").string();
  std::ofstream(file) << "1,0,2\n";
  const auto r = run("run '" + source("scenarios/faults/mecefo-350m.json") + "' --out x --set 'faults.process={\"name\": "
                     "\"trace\", \"file\": \"" + file + "\"}'");
  code = r.code;
  EXPECT_EQ(code, 2);
  EXPECT_NE(r.err.find("noheader.csv:1: the first line must be the header"), std::string::npos) << r.err;
}

TEST_F(FaultRun, BambooTakesOverFromThePreviousPipelineStage) {
  // pp 4 on 4 nodes: node n holds stage n; stage n-1 (and stage 3 for stage 0) runs its forward redundantly.
  // Nodes 0 and 2 down for 0.5 h: nodes 3 and 1 take over, nothing waits and the job runs slower (degraded) for
  // the whole outage (Bamboo's takeover has no pause, as in its own simulator). Nodes 1 and 2 down: stage 2's
  // copy was on node 1, so the job waits for the repair.
  const std::vector<std::string> sets = {"strategies.fault_tolerance=bamboo", "parallelism.pp=4",
                                         "training.micro_batch=4"};
  const auto apart = summary("1.0,0,0.5\n1.0,2,0.5\n", 2.0, sets), next = summary("1.0,1,0.5\n1.0,2,0.5\n", 2.0, sets);
  ASSERT_TRUE(apart.contains("faults") && next.contains("faults")) << apart.dump() << next.dump();
  EXPECT_EQ(apart["faults"]["wait_h"].get<double>(), 0.0);
  EXPECT_NEAR(apart["faults"]["degraded_h"].get<double>(), 0.5, 2.0 / 3600);  // up to an iteration
  EXPECT_NEAR(next["faults"]["wait_h"].get<double>(), 0.5, 1e-6);
  EXPECT_EQ(next["faults"]["degraded_h"].get<double>(), 0.0);
}

TEST_F(FaultRun, OobleckStallsItsStateCopyAndItsArtifactsRendezvousAtTheFailureAndAtTheRepair) {
  // LLaMA 350M (P parameters as above) data parallel over 4 nodes of 8 A100, no ZeRO: a node holds 8 x (2 + 12) P
  // bytes of weights and optimizer state, copied over 8 x 200 Gb/s NICs at the preset's network efficiency 0.92;
  // the reconfiguration is Oobleck's artifact's rendezvous interpolated between GPT-3 medium (0.35B, 3 s) and
  // GPT-3 2.7B (6 s). One node down from 1.0 h for 0.5 h: both stalls, and the iteration in flight lost.
  const auto s = summary("1.0,1,0.5\n", 2.0, {"strategies.fault_tolerance=oobleck"});
  ASSERT_TRUE(s.contains("faults")) << s.dump();
  const double h = 1024, ff = 2736, V = 32000;
  const double P = 24 * (4 * h * h + 3 * h * ff + 2 * h) + 2 * V * h + h;
  const double copy = 8 * 14 * P / (8 * 200e9 / 8 * 0.92), rendezvous = 3 + 3 * (P - 0.35e9) / (2.7e9 - 0.35e9);
  const auto& f = s["faults"];
  EXPECT_NEAR(f["stall_h"].get<double>() * 3600, 2 * (copy + rendezvous), 1e-5);
  EXPECT_GT(f["lost_iterations"].get<double>(), 0.0);
  EXPECT_LE(f["lost_iterations"].get<double>(), 1.0);
  EXPECT_EQ(f["wait_h"].get<double>(), 0.0);
}

TEST_F(FaultRun, OobleckHasNoTemplateWhereExpertParallelismNoLongerDividesTheReplicas) {
  // OLMoE at ep 16 on two 8-GPU nodes: on one node dp 8 is no multiple of ep 16, so there is no template and the
  // job waits for the node (it was a failed child simulation).
  const auto r = run("run '" + source("scenarios/moe/olmoe-ep8-a100.json") +
                     "' --out out --set output.trace=false --set training.seq_len=1024 --set parallelism.ep=16 "
                     "--set faults.horizon_h=2 --set 'faults.process={\"name\": \"exponential\", \"mtbf_h\": 0.5, "
                     "\"repair_h\": 0.25}' --set strategies.fault_tolerance=oobleck");
  ASSERT_EQ(r.code, 0) << r.err;
  const auto s = json::parse(read_file(dir_ / "out" / "summary.json"));
  EXPECT_GT(s["faults"]["failures"].get<int>(), 0);
  EXPECT_GT(s["faults"]["loss"]["wait"].get<double>(), 0);  // while a node is out, the job waits
}

TEST_F(FaultRun, TheLossByCauseAddsUpToTheDropForEveryModule) {
  // One node down from 1.0 h for 0.5 h of a 2 h run. Checkpoint-restart: its loss is lost work + stall (+ the
  // checkpoints), nothing degraded; MeCeFO: degraded while the node is down, + its switch stall; each module's
  // causes sum to its drop.
  for (const std::string module : {"none", "checkpoint-restart", "oobleck", "mecefo", "bamboo"}) {
    const auto s = summary("1.0,1,0.5\n", 2.0, {"strategies.fault_tolerance=" + module});
    ASSERT_TRUE(s.contains("faults")) << module << s.dump();
    const auto& f = s["faults"];
    double sum = 0;
    for (const auto& [cause, share] : f["loss"].items()) sum += share.get<double>();
    EXPECT_NEAR(sum, f["throughput_drop"].get<double>(), 1e-9) << module;
    const auto& loss = f["loss"];
    if (module == "none") EXPECT_NEAR(loss["stopped"].get<double>(), 0.5, 1e-6);  // stopped at the failure
    if (module == "checkpoint-restart") EXPECT_EQ(loss["degraded"].get<double>(), 0.0);
    if (module == "mecefo") {
      // Degraded for the outage less the 10 s switch (switch_s; its state copy at the repair is a stall after the
      // outage): (1800 - 10) s x (1 - T / T_degraded) over 2 h.
      const double T = s["iteration_time_s"], degraded = f["module"]["degraded_iteration_s"];
      EXPECT_NEAR(loss["degraded"].get<double>(), 1790 * (1 - T / degraded) / 7200, 1e-6);
    }
  }
}
