#include "llmsim/sweep/slurm.hpp"

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <sstream>
#include <stdexcept>
#include <thread>

#include "llmsim/report/output_dir.hpp"
#include "llmsim/scenario/loader.hpp"
#include "llmsim/util/process.hpp"
#include "llmsim/util/error.hpp"

namespace llmsim::sweep {

namespace fs = std::filesystem;

namespace {

std::string shell_quote(const std::string& s) {
  std::string q = "'";
  for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

bool in_path(const std::string& program) {
  const char* path = std::getenv("PATH");
  std::stringstream dirs(path ? path : "");
  for (std::string d; std::getline(dirs, d, ':');)
    if (!d.empty() && ::access((fs::path(d) / program).c_str(), X_OK) == 0) return true;
  return false;
}

std::string trim(const std::string& s) {
  const auto b = s.find_first_not_of(" \t\r\n");
  return b == std::string::npos ? "" : s.substr(b, s.find_last_not_of(" \t\r\n") - b + 1);
}

}  // namespace

std::string array_spec(const std::vector<size_t>& idx) {
  std::string spec;
  for (size_t i = 0; i < idx.size();) {
    size_t j = i;
    while (j + 1 < idx.size() && idx[j + 1] == idx[j] + 1) ++j;
    spec += (spec.empty() ? "" : ",") + std::to_string(idx[i]) + (j > i ? "-" + std::to_string(idx[j]) : "");
    i = j + 1;
  }
  return spec;
}

std::string sbatch_script(const SweepDir& dir, const std::vector<size_t>& indices, const std::string& exe,
                          const SlurmOptions& o) {
  std::ostringstream s;
  s << "#!/bin/bash\n"
    << "# llmsim sweep: one array task per point of " << dir.plan().string() << " (written by llmsim sweep)\n"
    << "#SBATCH --job-name=llmsim-sweep\n"
    << "#SBATCH --array=" << array_spec(indices) << (o.throttle > 0 ? "%" + std::to_string(o.throttle) : "") << "\n"
    << "#SBATCH --ntasks=1\n"
    << "#SBATCH --cpus-per-task=1\n"
    << "#SBATCH --output=" << (dir.slurm() / "%A_%a.out").string() << "\n";
  for (const auto& opt : o.sbatch_options) s << "#SBATCH " << opt << "\n";
  s << "export LLMSIM_CONFIG_DIR=${LLMSIM_CONFIG_DIR:-" << shell_quote(scenario::config_dir()) << "}\n";
  s << "exec " << shell_quote(exe) << " sweep run-point " << shell_quote(dir.root.string())
    << " \"$SLURM_ARRAY_TASK_ID\"\n";
  return s.str();
}

void check_slurm_clients() {
  for (const char* p : {"sbatch", "squeue"})
    if (!in_path(p))
      throw ScenarioError("--backend slurm", std::string(p) + " is not in PATH (install Debian's slurm-client; "
                                                              "tools/slurm-local.sh starts a one-node cluster)");
}

std::string submit(const SweepDir& dir, const std::vector<size_t>& indices, const std::string& exe,
                   const SlurmOptions& o) {
  fs::create_directories(dir.slurm());
  const fs::path copy = dir.slurm() / "llmsim", staged = copy.string() + ".tmp";
  fs::copy_file(exe, staged, fs::copy_options::overwrite_existing);
  fs::rename(staged, copy);
  const fs::path script = dir.slurm() / "sweep.sbatch";
  report::write_atomically(script.string(), sbatch_script(dir, indices, copy.string(), o));
  fs::permissions(script, fs::perms::owner_exec, fs::perm_options::add);
  const auto r = util::run_captured({"sbatch", "--parsable", script.string()});
  const std::string id = trim(r.out.substr(0, r.out.find(';')));
  if (r.status != 0 || id.empty())
    throw ScenarioError("--backend slurm", "sbatch refused the job (" + util::describe_status(r.status) + "): " +
                                               trim(r.err) + " (check --slurm-option and the SLURM controller)");
  report::write_atomically((dir.slurm() / "job_id").string(), id + "\n");
  return id;
}

void wait_for_job(const std::string& job, const std::function<bool()>& poll) {
  while (!poll()) {
    const auto r = util::run_captured({"squeue", "-h", "-j", job, "-o", "%i"});
    // squeue forgets a finished job after MinJobAge and then says "Invalid job id": gone as well.
    if (trim(r.out).empty() && (r.status == 0 || r.err.find("Invalid job id") != std::string::npos)) {
      poll();
      return;
    }
    if (r.status != 0)
      throw ScenarioError("--wait", "squeue -j " + job + " failed: " + trim(r.err) +
                                        " (the points finished so far are kept: llmsim sweep collect gathers them)");
    std::this_thread::sleep_for(std::chrono::seconds(1));
  }
}

}  // namespace llmsim::sweep
