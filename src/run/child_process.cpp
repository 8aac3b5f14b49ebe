#include "llmsim/run/child_process.hpp"

#include <spdlog/spdlog.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmath>
#include <cstring>
#include <limits>

#include "llmsim/util/error.hpp"
#include "llmsim/util/process.hpp"

namespace llmsim::run {

std::string in_child_bytes(const std::function<std::string()>& f, const std::string& what) {
  int fd[2];
  if (pipe(fd) != 0) throw SimulationError(what + ": cannot create a pipe");
  const pid_t pid = util::fork_child([&] {
    close(fd[0]);
    spdlog::set_level(spdlog::level::off);
    const std::string bytes = f();
    size_t done = 0;
    while (done < bytes.size()) {
      const ssize_t n = write(fd[1], bytes.data() + done, bytes.size() - done);
      if (n <= 0) return 1;
      done += static_cast<size_t>(n);
    }
    return 0;
  });
  close(fd[1]);
  if (pid < 0) {
    close(fd[0]);
    throw SimulationError(what + ": cannot fork");
  }
  std::string bytes;
  char buffer[65536];
  for (ssize_t n; (n = read(fd[0], buffer, sizeof buffer)) > 0;) bytes.append(buffer, static_cast<size_t>(n));
  close(fd[0]);
  const int status = util::wait_for(pid);
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
    throw SimulationError(what + ": the simulation in a child process failed");
  return bytes;
}

double in_child(const std::function<double()>& f, const std::string& what) {
  const std::string bytes = in_child_bytes(
      [&] {
        const double value = f();
        return std::string(reinterpret_cast<const char*>(&value), sizeof value);
      },
      what);
  double value = std::numeric_limits<double>::quiet_NaN();
  if (bytes.size() == sizeof value) std::memcpy(&value, bytes.data(), sizeof value);
  if (std::isnan(value)) throw SimulationError(what + ": the simulation in a child process failed");
  return value;
}

}  // namespace llmsim::run
