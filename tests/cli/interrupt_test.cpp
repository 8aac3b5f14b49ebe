// SIGINT and SIGTERM during `llmsim run`, `regress` and `sweep`: exit 130 / 143 with the one stderr line
// "interrupted: no output written", no output or staging directory, no temporary folder and no child process
// left; an interrupted sweep keeps its finished points. A staging directory a dead process left is removed by
// the next run to the same --out, a live process's is not.
#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <functional>
#include <thread>

#include "../support/cli.hpp"

namespace llmsim::test {
namespace {

const std::string kInterrupted = "interrupted: no output written\n";

/// The entries of `dir` whose name starts with `prefix`.
std::vector<fs::path> starting_with(const fs::path& dir, const std::string& prefix) {
  std::vector<fs::path> found;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(dir, ec))
    if (e.path().filename().string().rfind(prefix, 0) == 0) found.push_back(e.path());
  return found;
}

/// The pid a staging directory "<out>.partial-<pid>" names.
pid_t staging_pid(const fs::path& staging) {
  const std::string name = staging.filename().string();
  return static_cast<pid_t>(std::stol(name.substr(name.rfind('-') + 1)));
}

bool alive(pid_t pid) { return ::kill(pid, 0) == 0 || errno != ESRCH; }

/// The child processes of `pid` (Linux's /proc/PID/task/PID/children).
std::vector<pid_t> children_of(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/task/" + std::to_string(pid) + "/children");
  std::vector<pid_t> out;
  for (pid_t c; in >> c;) out.push_back(c);
  return out;
}

/// default.json with 20 iterations: about 0.4 s simulating, then 1 s writing its 13 MB trace.json (measured on
/// a loaded 2-core machine), so a signal sent a few milliseconds into either phase lands in that phase.
json slow_training() {
  json s = default_json();
  s["training"]["iterations"] = 20;
  return s;
}

class Interrupt : public Cli {
 protected:
  /// Starts `llmsim args...` in the temporary directory, stdout and stderr into files, with the default
  /// actions of SIGINT and SIGTERM and TMPDIR=<dir>/tmp.
  void start(const std::vector<std::string>& args) {
    fs::create_directories(dir_ / "tmp");
    pid_ = ::fork();
    ASSERT_GE(pid_, 0);
    if (pid_ > 0) return;
    std::vector<char*> argv = {const_cast<char*>(LLMSIM_BINARY)};
    for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    ::setenv("TMPDIR", (dir_ / "tmp").c_str(), 1);
    const int out = ::open((dir_ / ".capture" / "stdout").c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    const int err = ::open((dir_ / ".capture" / "stderr").c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    sigset_t none;
    sigemptyset(&none);
    ::sigprocmask(SIG_SETMASK, &none, nullptr);
    ::signal(SIGINT, SIG_DFL);
    ::signal(SIGTERM, SIG_DFL);
    if (out < 0 || err < 0 || ::dup2(out, 1) < 0 || ::dup2(err, 2) < 0 || ::chdir(dir_.c_str()) != 0) ::_exit(127);
    ::execv(argv[0], argv.data());
    ::_exit(127);
  }

  /// Waits up to a minute for `ready`; fails the test if the process ends first or it never comes.
  void wait_until(const std::function<bool()>& ready, const std::string& what) {
    for (int i = 0; i < 60000; ++i) {
      if (ready()) return;
      int status = 0;
      ASSERT_EQ(::waitpid(pid_, &status, WNOHANG), 0)
          << "llmsim ended before " << what << ": " << read_file(dir_ / ".capture" / "stderr");
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    FAIL() << "no " << what << " after a minute";
  }

  /// Sends `sig` and expects exit 128 + sig with the one line on stderr and nothing on stdout.
  void interrupt_and_expect_clean_exit(int sig) {
    ASSERT_EQ(::kill(pid_, sig), 0);
    int status = 0;
    ASSERT_EQ(::waitpid(pid_, &status, 0), pid_);
    ASSERT_TRUE(WIFEXITED(status)) << "ended by signal " << (WIFSIGNALED(status) ? WTERMSIG(status) : 0);
    EXPECT_EQ(WEXITSTATUS(status), 128 + sig);
    EXPECT_EQ(read_file(dir_ / ".capture" / "stderr"), kInterrupted);
    EXPECT_EQ(read_file(dir_ / ".capture" / "stdout"), "");
  }

  void expect_gone(pid_t child) { EXPECT_FALSE(alive(child)) << "child process " << child << " is still there"; }

  pid_t pid_ = -1;
};

TEST_F(Interrupt, SigintDuringTheSimulationLeavesNoOutput) {
  start({"run", write("slow.json", slow_training()), "--out", "out"});
  wait_until([&] { return !starting_with(dir_, "out.partial-").empty(); }, "a staging directory");
  std::this_thread::sleep_for(std::chrono::milliseconds(200));  // into SimGrid's run, which replaces SIGINT's handler
  interrupt_and_expect_clean_exit(SIGINT);
  EXPECT_FALSE(fs::exists(dir_ / "out"));
  expect_no_staging_leftovers();
}

TEST_F(Interrupt, SigtermWhileTheTraceIsWrittenLeavesNoOutput) {
  start({"run", write("slow.json", slow_training()), "--out", "out"});
  wait_until(
      [&] {
        const auto staging = starting_with(dir_, "out.partial-");
        return !staging.empty() && fs::exists(staging[0] / "trace.json");
      },
      "a trace.json being written");
  interrupt_and_expect_clean_exit(SIGTERM);
  EXPECT_FALSE(fs::exists(dir_ / "out"));
  expect_no_staging_leftovers();
}

TEST_F(Interrupt, ForkedSearchRunsAreStoppedAndReaped) {
  start({"run", source("scenarios/moe/flowmoe/gpt2-tiny-moe.json"), "--out", "out"});
  std::vector<pid_t> children;
  wait_until([&] { return !(children = children_of(pid_)).empty(); }, "an S_p search child process");
  interrupt_and_expect_clean_exit(SIGTERM);
  for (pid_t c : children) expect_gone(c);
  EXPECT_FALSE(fs::exists(dir_ / "out"));
  expect_no_staging_leftovers();
}

TEST_F(Interrupt, RegressStopsItsRunsAndRemovesItsTemporaryFolder) {
  fs::create_directories(dir_ / "suite");
  write("suite/a.json", slow_training());
  write("suite/b.json", slow_training());
  start({"regress", "suite", "--baseline", "base.json", "--update-baseline", "-j", "2"});
  std::vector<fs::path> staging;
  wait_until(
      [&] {
        staging.clear();
        for (const auto& work : starting_with(dir_ / "tmp", "llmsim-regress-"))
          for (const char* i : {"0", "1"})
            for (const auto& s : starting_with(work / i, "out.partial-")) staging.push_back(s);
        return staging.size() == 2;
      },
      "both scenario runs");
  interrupt_and_expect_clean_exit(SIGINT);
  for (const auto& s : staging) expect_gone(staging_pid(s));
  EXPECT_TRUE(fs::is_empty(dir_ / "tmp")) << "the temporary folder is left";
  EXPECT_FALSE(fs::exists(dir_ / "base.json"));
}

TEST_F(Interrupt, SweepKeepsItsFinishedPointsAndRemovesTheRunningOnesOutput) {
  start({"sweep", write("slow.json", slow_training()), "--grid", "training.iterations=1,20", "--out", "out"});
  const fs::path runs = dir_ / "out" / "runs";
  std::vector<fs::path> staging;
  wait_until([&] { return !(staging = starting_with(runs, "0001.partial-")).empty(); }, "the second point's run");
  ASSERT_EQ(::kill(pid_, SIGTERM), 0);
  int status = 0;
  ASSERT_EQ(::waitpid(pid_, &status, 0), pid_);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 143);
  const auto err = lines(read_file(dir_ / ".capture" / "stderr"));
  ASSERT_EQ(err.size(), 2u) << read_file(dir_ / ".capture" / "stderr");
  EXPECT_EQ(err[0].rfind("sweep: 1/2 0000 ok", 0), 0u) << err[0];  // the progress line of the finished point
  EXPECT_EQ(err[1] + "\n", kInterrupted);
  expect_gone(staging_pid(staging[0]));
  for (const char* kept : {"0000/summary.json", "0000.done", "0000.log"}) EXPECT_TRUE(fs::exists(runs / kept)) << kept;
  EXPECT_FALSE(fs::exists(runs / "0001.done")) << "the interrupted point has a marker: a rerun would skip it";
  EXPECT_FALSE(fs::exists(runs / "0001"));
  EXPECT_TRUE(starting_with(runs, "0001.partial-").empty());
  EXPECT_TRUE(fs::exists(dir_ / "out" / "points.jsonl"));
}

TEST_F(Interrupt, StagingLeftByADeadProcessIsRemovedAndALiveOnesKept) {
  pid_t dead = 999999;
  while (alive(dead)) --dead;
  const pid_t live = ::getpid();
  for (const std::string& name : {"out.partial-" + std::to_string(dead), "out.old-" + std::to_string(dead),
                                  "out.partial-" + std::to_string(live)}) {
    fs::create_directories(dir_ / name);
    write(name + "/trace.json", "[{\"truncated");
  }
  const auto r = run("run '" + source("scenarios/default.json") + "' --set training.iterations=1 --out out");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_TRUE(fs::exists(dir_ / "out" / "summary.json"));
  EXPECT_FALSE(fs::exists(dir_ / ("out.partial-" + std::to_string(dead))));
  EXPECT_FALSE(fs::exists(dir_ / ("out.old-" + std::to_string(dead))));
  EXPECT_TRUE(fs::exists(dir_ / ("out.partial-" + std::to_string(live)) / "trace.json"))
      << "the staging directory of a live process was removed";
}

}  // namespace
}  // namespace llmsim::test
