// llmsim sweep --backend slurm against a real one-node SLURM cluster (slurmctld + slurmd + munged from
// Debian's slurm-wlm and munge, started by tools/slurm-local.sh in the test's directory). Skipped, with the
// reason, where the daemons cannot start (packages missing, not root).
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <thread>

#include "sweep_support.hpp"

namespace llmsim::test {
namespace {

class SlurmSweep : public Cli {
 protected:
  void SetUp() override {
    Cli::SetUp();
    cluster_ = dir_ / "cluster";
    // A port pair of our own (slurmctld, slurmd), so that a SLURM already running on this host, and the other
    // SLURM test running next to this one, are left alone.
    const std::string port = std::to_string(20000 + 2 * (::getpid() % 10000));
    const std::string cmd = "SLURM_LOCAL_PORT=" + port + " '" + source("tools/slurm-local.sh") + "' start '" +
                            cluster_.string() + "' >'" + (dir_ / "start.out").string() + "' 2>&1";
    const int status = std::system(cmd.c_str());
    if (status != 0) {
      stop();
      GTEST_SKIP() << "no local SLURM cluster (tools/slurm-local.sh start failed): " << read_file(dir_ / "start.out");
    }
    started_ = true;
    ::setenv("SLURM_CONF", (cluster_ / "slurm.conf").c_str(), 1);
  }
  void TearDown() override {
    if (started_) stop();
    Cli::TearDown();
  }
  void stop() {
    const std::string cmd = "'" + source("tools/slurm-local.sh") + "' stop '" + cluster_.string() + "' >/dev/null 2>&1";
    EXPECT_EQ(std::system(cmd.c_str()), 0);
  }
  fs::path cluster_;
  bool started_ = false;
};

const std::string kGrid4 = "--grid parallelism.tp=1,2 --grid strategies.pipeline_schedule.name=gpipe,1f1b";

TEST_F(SlurmSweep, FourPointJobArrayWaitsAndCollects) {
  const auto r = run(fast_sweep(kGrid4 + " --backend slurm --wait"));
  ASSERT_EQ(r.code, 0) << r.out << r.err << read_file(cluster_ / "slurmctld.log");
  EXPECT_NE(r.out.find("submitted SLURM job"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("4 points: 4 ok, 0 invalid, 0 failed"), std::string::npos) << r.out;

  const std::string script = read_file(dir_ / "out" / "slurm" / "sweep.sbatch");
  EXPECT_NE(script.find("#SBATCH --array=0-3\n"), std::string::npos) << script;
  EXPECT_NE(script.find(" sweep run-point '" + (dir_ / "out").string() + "' \"$SLURM_ARRAY_TASK_ID\""),
            std::string::npos) << script;
  const std::string job = lines(read_file(dir_ / "out" / "slurm" / "job_id")).at(0);
  for (int task = 0; task < 4; ++task)  // each array task wrote its log
    EXPECT_TRUE(fs::exists(dir_ / "out" / "slurm" / (job + "_" + std::to_string(task) + ".out"))) << task;

  auto csv = csv_rows(dir_ / "out" / "results.csv");
  ASSERT_EQ(csv.size(), 4u);
  const char* schedule[] = {"gpipe", "1f1b"};
  for (size_t i = 0; i < 4; ++i) {
    EXPECT_EQ(csv[i]["status"], "ok");
    EXPECT_EQ(csv[i]["parallelism.tp"], std::to_string(1 + i / 2));
    EXPECT_EQ(csv[i]["strategies.pipeline_schedule.name"], schedule[i % 2]);
  }
  const json direct = run_summary("scenarios/default.json", fast_sets() + " --set parallelism.tp=2 --set "
                                  "strategies.pipeline_schedule.name=1f1b");
  EXPECT_EQ(std::stod(csv[3]["tokens_per_s"]), direct["tokens_per_s"].get<double>());
  EXPECT_EQ(std::stod(csv[3]["iteration_time_s"]), direct["iteration_time_s"].get<double>());
}

TEST_F(SlurmSweep, WithoutWaitSubmitsAndCollectGathersTheFinishedPoints) {
  const auto r = run(fast_sweep(kGrid4 + " --backend slurm -j 1"));
  ASSERT_EQ(r.code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("llmsim sweep collect"), std::string::npos) << r.out;
  EXPECT_NE(read_file(dir_ / "out" / "slurm" / "sweep.sbatch").find("#SBATCH --array=0-3%1\n"), std::string::npos);
  for (int i = 0; i < 1200 && !fs::exists(dir_ / "out" / "runs" / "0003.done"); ++i)  // up to 2 minutes
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  const auto c = run("sweep collect out");
  EXPECT_EQ(c.code, 0) << c.out << c.err;
  const auto rows = jsonl(dir_ / "out" / "results.jsonl");
  ASSERT_EQ(rows.size(), 4u);
  for (const auto& row : rows) EXPECT_EQ(row["status"], "ok") << row.dump();
}

}  // namespace
}  // namespace llmsim::test
