#pragma once
// `llmsim sweep`: runs a scenario over a grid of --set values, locally or as a SLURM job array, and writes
// DIR/results.csv and DIR/results.jsonl (docs/workflow.md, "Sweeps"). Exit codes: 0 every point ended ok or
// invalid (or, without --wait, the SLURM job was submitted), 1 a point failed or is still pending after the
// job, 2 the sweep itself is bad input (malformed axes, zip lengths, an unknown key, a changed definition
// against an existing DIR) - then no run has started and no DIR was created.
#include <ostream>
#include <string>
#include <vector>

namespace llmsim::sweep {

struct SweepOptions {
  std::string scenario;
  std::vector<std::string> sets, grid, zip;  ///< "k=v" shared overrides; "k=v1,v2" axes
  std::string sweep_file;
  int jobs = 0;  ///< concurrent runs (local; 0 = 1) or SLURM tasks (0 = no limit)
  std::string out;
  std::string backend = "local";       ///< local or slurm
  bool wait = false;                   ///< slurm: wait for the job and collect
  std::vector<std::string> slurm_options;  ///< extra #SBATCH lines
};

/// Plans, runs (or submits) and tabulates a sweep; progress on stderr, the final tally on `out`.
int sweep_command(const SweepOptions& o, std::ostream& out);

/// `llmsim sweep collect DIR`: rewrites DIR's results from the points finished so far.
int sweep_collect_command(const std::string& dir, std::ostream& out);

/// `llmsim sweep run-point DIR INDEX` (what a SLURM array task runs): runs one point unless it is final.
int sweep_run_point_command(const std::string& dir, long index);

}  // namespace llmsim::sweep
