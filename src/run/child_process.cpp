#include "llmsim/run/child_process.hpp"

#include <spdlog/spdlog.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmath>
#include <limits>

#include "llmsim/util/error.hpp"
#include "llmsim/util/process.hpp"

namespace llmsim::run {

double in_child(const std::function<double()>& f, const std::string& what) {
  int fd[2];
  if (pipe(fd) != 0) throw SimulationError(what + ": cannot create a pipe");
  const pid_t pid = util::fork_child([&] {
    close(fd[0]);
    spdlog::set_level(spdlog::level::off);
    const double value = f();
    return write(fd[1], &value, sizeof value) == static_cast<ssize_t>(sizeof value) ? 0 : 1;
  });
  close(fd[1]);
  if (pid < 0) {
    close(fd[0]);
    throw SimulationError(what + ": cannot fork");
  }
  double value = std::numeric_limits<double>::quiet_NaN();
  const bool got = read(fd[0], &value, sizeof value) == static_cast<ssize_t>(sizeof value);
  close(fd[0]);
  const int status = util::wait_for(pid);
  if (!got || !WIFEXITED(status) || WEXITSTATUS(status) != 0 || std::isnan(value))
    throw SimulationError(what + ": the simulation in a child process failed");
  return value;
}

}  // namespace llmsim::run
