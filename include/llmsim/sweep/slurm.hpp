#pragma once
// The SLURM backend: a job array with one task per unfinished point. DIR/slurm/sweep.sbatch runs
// `DIR/slurm/llmsim sweep run-point DIR $SLURM_ARRAY_TASK_ID` (same outputs and marker as a local run; a task
// whose point is already final does nothing). DIR/slurm/llmsim is a copy of the running executable taken at
// submission, so every point runs the same build even if the original is rebuilt meanwhile; the script sets
// LLMSIM_CONFIG_DIR (unless already set) to the presets the submitting llmsim uses. Task logs go to
// DIR/slurm/<job>_<task>.out, the job id to DIR/slurm/job_id.
// sbatch and squeue come from PATH and read $SLURM_CONF like any SLURM client.
#include <functional>
#include <string>
#include <vector>

#include "llmsim/sweep/plan.hpp"

namespace llmsim::sweep {

struct SlurmOptions {
  int throttle = 0;                         ///< at most this many tasks at once (%N); 0 = no limit
  std::vector<std::string> sbatch_options;  ///< extra "#SBATCH <option>" lines, e.g. "--partition=gpu"
};

/// "0-3,7,9-11": the indices as a SLURM array specification (`indices` ascending).
std::string array_spec(const std::vector<size_t>& indices);

/// The job script for the points `indices`, run by the llmsim executable `exe` (a path on the compute nodes).
std::string sbatch_script(const SweepDir& dir, const std::vector<size_t>& indices, const std::string& exe,
                          const SlurmOptions& o);

/// Throws ScenarioError("--backend slurm", ...) if sbatch or squeue is not in PATH.
void check_slurm_clients();

/// Copies the executable `exe` to DIR/slurm/llmsim, writes DIR/slurm/sweep.sbatch, submits it
/// (sbatch --parsable) and returns the job id.
/// std::runtime_error with sbatch's message if it refuses the job.
std::string submit(const SweepDir& dir, const std::vector<size_t>& indices, const std::string& exe,
                   const SlurmOptions& o);

/// Polls squeue about once a second until no task of `job` is pending or running, or until `poll` returns
/// true (all points done); `poll` also runs once after the job has gone.
void wait_for_job(const std::string& job, const std::function<bool()>& poll);

}  // namespace llmsim::sweep
