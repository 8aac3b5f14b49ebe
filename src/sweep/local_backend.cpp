#include "llmsim/sweep/local_backend.hpp"

#include <signal.h>
#include <sys/wait.h>

#include <cerrno>
#include <cstdlib>
#include <map>

#include "llmsim/sweep/point_run.hpp"
#include "llmsim/util/process.hpp"

namespace llmsim::sweep {

namespace {

volatile sig_atomic_t g_stop_signal = 0;
void on_stop_signal(int sig) { g_stop_signal = sig; }

constexpr int kStopSignals[] = {SIGINT, SIGTERM, SIGHUP};

void install_handlers() {
  struct sigaction sa {};
  sa.sa_handler = on_stop_signal;  // no SA_RESTART: waitpid returns EINTR
  sigemptyset(&sa.sa_mask);
  for (int s : kStopSignals) sigaction(s, &sa, nullptr);
}

[[noreturn]] void stop(const std::map<pid_t, const Point*>& running, int sig) {
  for (const auto& [pid, point] : running) ::kill(pid, SIGTERM);
  for (const auto& [pid, point] : running) ::waitpid(pid, nullptr, 0);
  for (int s : kStopSignals) ::signal(s, SIG_DFL);
  ::raise(sig);
  std::_Exit(128 + sig);
}

}  // namespace

void run_local(const SweepDir& dir, const SweepDefinition& d, const std::vector<Point>& todo, int jobs,
               const std::string& exe, Progress& progress) {
  install_handlers();
  std::map<pid_t, const Point*> running;
  size_t next = 0;
  while (next < todo.size() || !running.empty()) {
    while (static_cast<int>(running.size()) < jobs && next < todo.size() && !g_stop_signal) {
      running[start_point(dir, d, todo[next], exe)] = &todo[next];
      ++next;
    }
    if (g_stop_signal) stop(running, g_stop_signal);
    int status = 0;
    const pid_t pid = ::waitpid(-1, &status, 0);
    if (pid < 0) {
      if (errno == EINTR) continue;
      break;  // ECHILD: nothing left to wait for
    }
    const auto it = running.find(pid);
    if (it == running.end()) continue;
    const Point& p = *it->second;
    running.erase(it);
    progress.point_done(p, finish_point(dir, p, status));
  }
  for (int s : kStopSignals) ::signal(s, SIG_DFL);
}

}  // namespace llmsim::sweep
