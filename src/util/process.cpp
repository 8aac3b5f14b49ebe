#include "llmsim/util/process.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>

#include "llmsim/util/interrupt.hpp"

extern char** environ;

namespace llmsim::util {

namespace {

pid_t spawn(const std::vector<std::string>& argv, posix_spawn_file_actions_t* actions) {
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  DeferInterrupts defer;  // no interrupt between the start and the registration
  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  posix_spawnattr_setsigmask(&attr, &defer.previous_mask());
  posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGMASK);
  pid_t pid = 0;
  const int rc = ::posix_spawnp(&pid, args[0], actions, &attr, args.data(), environ);
  posix_spawn_file_actions_destroy(actions);
  posix_spawnattr_destroy(&attr);
  if (rc != 0) throw std::runtime_error("cannot start " + argv[0] + ": " + std::strerror(rc));
  track_child(pid);
  return pid;
}

}  // namespace

pid_t spawn_logged(const std::vector<std::string>& argv, const std::string& output_file, const std::string& error_file) {
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&actions, 1, output_file.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (error_file.empty())
    posix_spawn_file_actions_adddup2(&actions, 1, 2);
  else
    posix_spawn_file_actions_addopen(&actions, 2, error_file.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  return spawn(argv, &actions);
}

pid_t fork_child(const std::function<int()>& body) {
  const pid_t parent = ::getpid();
  DeferInterrupts defer;  // as in spawn; the child also resets its signals before it may take one
  const pid_t pid = ::fork();
  if (pid != 0) {
    if (pid > 0) track_child(pid);
    return pid;
  }
  become_forked_helper();
  if (::prctl(PR_SET_PDEATHSIG, SIGKILL) != 0 || ::getppid() != parent) ::_exit(1);
  ::pthread_sigmask(SIG_SETMASK, &defer.previous_mask(), nullptr);
  int code = 1;
  try {
    code = body();
  } catch (...) {
  }
  ::_exit(code);
}

int wait_for(pid_t pid) {
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0)
    if (errno != EINTR) throw std::runtime_error(std::string("waitpid: ") + std::strerror(errno));
  forget_child(pid);
  return status;
}

pid_t wait_any(int& status) {
  pid_t pid;
  while ((pid = ::waitpid(-1, &status, 0)) < 0 && errno == EINTR) {
  }
  if (pid > 0) forget_child(pid);
  return pid;
}

std::string describe_status(int s) {
  if (WIFEXITED(s)) return "exit code " + std::to_string(WEXITSTATUS(s));
  if (WIFSIGNALED(s)) return "killed by signal " + std::to_string(WTERMSIG(s)) + " (" + ::strsignal(WTERMSIG(s)) + ")";
  return "wait status " + std::to_string(s);
}

Captured run_captured(const std::vector<std::string>& argv) {
  int out[2], err[2];
  if (::pipe2(out, O_CLOEXEC) != 0 || ::pipe2(err, O_CLOEXEC) != 0)
    throw std::runtime_error(std::string("pipe: ") + std::strerror(errno));
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_adddup2(&actions, out[1], 1);
  posix_spawn_file_actions_adddup2(&actions, err[1], 2);
  pid_t pid = -1;
  try {
    pid = spawn(argv, &actions);
  } catch (...) {
    for (int fd : {out[0], out[1], err[0], err[1]}) ::close(fd);
    throw;
  }
  ::close(out[1]);
  ::close(err[1]);
  Captured c;
  pollfd fds[2] = {{out[0], POLLIN, 0}, {err[0], POLLIN, 0}};
  std::string* sinks[2] = {&c.out, &c.err};
  for (int open = 2; open > 0;) {
    if (::poll(fds, 2, -1) < 0) {
      if (errno == EINTR) continue;
      break;
    }
    for (int i = 0; i < 2; ++i) {
      if (fds[i].fd < 0 || !(fds[i].revents & (POLLIN | POLLHUP | POLLERR))) continue;
      char buf[4096];
      const ssize_t n = ::read(fds[i].fd, buf, sizeof buf);
      if (n > 0) {
        sinks[i]->append(buf, static_cast<size_t>(n));
      } else if (n == 0 || errno != EINTR) {
        ::close(fds[i].fd);
        fds[i].fd = -1;
        --open;
      }
    }
  }
  c.status = wait_for(pid);
  return c;
}

}  // namespace llmsim::util
