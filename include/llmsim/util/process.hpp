#pragma once
// Child processes (posix_spawn): the `llmsim run`s of a sweep or a regression suite, sbatch/squeue for SLURM;
// and forked helpers (fork_child). Errors starting a program are std::runtime_error naming it. Every child
// started here is registered with util/interrupt.hpp from its start until wait_for or wait_any reaps it: an
// interrupt of this process stops it.
#include <sys/types.h>

#include <functional>
#include <string>
#include <vector>

namespace llmsim::util {

/// Starts argv[0] (a path, or a name looked up in PATH) with stdin from /dev/null, stdout written to `output_file`
/// and stderr to `error_file` (both truncated; empty `error_file`: stderr into `output_file` too). The child stays
/// in the caller's process group.
pid_t spawn_logged(const std::vector<std::string>& argv, const std::string& output_file,
                   const std::string& error_file = "");

/// Forks a child that runs `body` and `_exit`s with what it returns (1 if it throws). The child gets the
/// default action of the interrupt signals (an interrupt of this process sends it SIGTERM) and SIGKILL when
/// this process ends, so a helper that forks helpers leaves none behind. Returns -1 if fork fails.
pid_t fork_child(const std::function<int()>& body);

/// Waits for `pid` (retrying on EINTR); returns its wait status.
int wait_for(pid_t pid);

/// Waits for any child (retrying on EINTR); returns its pid and sets `status`, or -1 when there is none.
pid_t wait_any(int& status);

/// "exit code 3", "killed by signal 9" (a wait status in words).
std::string describe_status(int wait_status);

struct Captured {
  int status = 0;  ///< wait status
  std::string out, err;
};
/// Runs argv to completion and returns its stdout and stderr. Throws std::runtime_error if it cannot start
/// (e.g. not found in PATH).
Captured run_captured(const std::vector<std::string>& argv);

}  // namespace llmsim::util
