#include "llmsim/sweep/local_backend.hpp"

#include <map>

#include "llmsim/sweep/point_run.hpp"
#include "llmsim/util/process.hpp"

namespace llmsim::sweep {

void run_local(const SweepDir& dir, const SweepDefinition& d, const std::vector<Point>& todo, int jobs,
               const std::string& exe, Progress& progress) {
  std::map<pid_t, const Point*> running;
  size_t next = 0;
  while (next < todo.size() || !running.empty()) {
    while (static_cast<int>(running.size()) < jobs && next < todo.size()) {
      running[start_point(dir, d, todo[next], exe)] = &todo[next];
      ++next;
    }
    int status = 0;
    const pid_t pid = util::wait_any(status);
    if (pid < 0) break;  // ECHILD: nothing left to wait for
    const auto it = running.find(pid);
    if (it == running.end()) continue;
    const Point& p = *it->second;
    running.erase(it);
    progress.point_done(p, finish_point(dir, p, status));
  }
}

}  // namespace llmsim::sweep
