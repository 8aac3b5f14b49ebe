#pragma once
// Child processes (posix_spawn): the `llmsim run`s of a sweep or a regression suite, sbatch/squeue for SLURM.
// Errors starting a program are std::runtime_error naming it.
#include <sys/types.h>

#include <string>
#include <vector>

namespace llmsim::util {

/// Starts argv[0] (a path, or a name looked up in PATH) with stdin from /dev/null, stdout written to `output_file`
/// and stderr to `error_file` (both truncated; empty `error_file`: stderr into `output_file` too). The child stays
/// in the caller's process group.
pid_t spawn_logged(const std::vector<std::string>& argv, const std::string& output_file,
                   const std::string& error_file = "");

/// Waits for `pid` (retrying on EINTR); returns its wait status.
int wait_for(pid_t pid);

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
