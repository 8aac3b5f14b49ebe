#include "llmsim/sweep/command.hpp"

#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>

#include "llmsim/scenario/loader.hpp"
#include "llmsim/sweep/local_backend.hpp"
#include "llmsim/sweep/point_run.hpp"
#include "llmsim/util/process.hpp"
#include "llmsim/sweep/results.hpp"
#include "llmsim/sweep/slurm.hpp"
#include "llmsim/util/error.hpp"

namespace llmsim::sweep {

namespace fs = std::filesystem;

namespace {

SweepDir sweep_dir(const std::string& path) {
  if (path.empty()) throw ScenarioError("dir", "an empty path (give the sweep's directory)");
  return {fs::absolute(path).lexically_normal()};
}

/// Whether point `p` resolves as it did when it ran (its run's scenario.resolved.json): a preset edited since would
/// otherwise mix two models in results.csv. A data file's contents (a trace) are not compared.
bool inputs_unchanged(const SweepDir& dir, const SweepDefinition& d, const Point& p) {
  std::vector<std::string> sets = d.sets;
  sets.insert(sets.end(), p.sets.begin(), p.sets.end());
  try {
    std::ifstream in(dir.run(p.id) / "scenario.resolved.json");
    return nlohmann::json::parse(in) == scenario::load_scenario(d.scenario, sets).resolved;
  } catch (const std::exception&) {  // unreadable, or no longer valid: run it again to say what it is now
    return false;
  }
}

/// Prints the tally; 0 if every point is ok or invalid.
int report(const SweepDir& dir, std::ostream& out) {
  const Tally t = collect(dir);
  out << "sweep: " << t.ok + t.invalid + t.failed + t.pending << " points: " << t.ok << " ok, " << t.invalid
      << " invalid, " << t.failed << " failed" << (t.pending ? ", " + std::to_string(t.pending) + " pending" : "")
      << "; results in " << (dir.root / "results.csv").string() << "\n";
  return t.failed + t.pending > 0 ? 1 : 0;
}

/// The options that need no file: a scenario, --out, and SLURM-only options with the SLURM backend.
void check_options(const SweepOptions& o) {
  if (o.scenario.empty()) throw ScenarioError("sweep", "give a SCENARIO file (or: llmsim sweep collect DIR)");
  if (o.out.empty()) throw ScenarioError("sweep", "give --out DIR (the sweep's directory; rerun it to resume)");
  if (o.wait && o.backend != "slurm") throw ScenarioError("--wait", "only with --backend slurm");
  if (!o.slurm_options.empty() && o.backend != "slurm") throw ScenarioError("--slurm-option", "only with --backend slurm");
  for (const auto& opt : o.slurm_options)  // each becomes one "#SBATCH" line of the job script
    if (opt.rfind("-", 0) != 0 || std::any_of(opt.begin(), opt.end(), is_control) ||
        opt.rfind("--array", 0) == 0 || opt.rfind("-a", 0) == 0)
      throw ScenarioError("--slurm-option", "\"" + opt + "\" is not one sbatch option (it starts with '-', holds no "
                                            "line break or other control character and is not --array, which the "
                                            "sweep sets; e.g. --partition=gpu)");
  if (o.backend != "slurm") return;
  // The directory's path is written into the job script's comment and #SBATCH --output lines, unquoted.
  const std::string root = fs::absolute(o.out).string();
  if (std::any_of(root.begin(), root.end(), is_control))
    throw ScenarioError("--out", "with --backend slurm the sweep directory's path may hold no line break or other "
                                 "control character (it is written into the job script)");
}

/// The points not yet done: never run, failed, ok but without their summary, or ok under presets edited since
/// (their markers are removed, so each is redone).
std::vector<Point> points_to_run(const SweepDir& dir, const SweepDefinition& def, const std::vector<Point>& points) {
  std::vector<Point> todo;
  for (const auto& p : points) {
    const auto m = read_marker(dir, p.id);
    const bool stale = is_final(m) && m->status == "ok" && !inputs_unchanged(dir, def, p);
    if (stale) std::cerr << "sweep: point " << p.id << " resolves differently than when it ran (a preset changed): run again\n";
    if (!is_final(m) || (m->status == "ok" && !read_summary(dir, p.id)) || stale) {
      fs::remove(dir.marker(p.id));
      todo.push_back(p);
    }
  }
  return todo;
}

/// Submits `todo` as one SLURM array job; with --wait, follows it until every point has its marker.
int run_on_slurm(const SweepOptions& o, const SweepDir& dir, bool fresh, const std::vector<Point>& todo,
                 Progress& progress, std::ostream& out) {
  std::vector<size_t> indices;
  for (const auto& p : todo) indices.push_back(p.index);
  std::string job;
  try {
    job = submit(dir, indices, "/proc/self/exe", {o.jobs, o.slurm_options});
  } catch (...) {
    if (fresh) fs::remove_all(dir.root);  // a sweep that never started leaves nothing behind
    throw;
  }
  out << "sweep: submitted SLURM job " << job << " (" << todo.size() << " array tasks, "
      << (dir.slurm() / "sweep.sbatch").string() << ")\n";
  if (!o.wait) {
    out << "sweep: llmsim sweep collect " << dir.root.string() << " gathers the finished points\n";
    return 0;
  }
  size_t reported = 0;
  std::vector<bool> seen(todo.size(), false);
  wait_for_job(job, [&] {
    for (size_t i = 0; i < todo.size(); ++i) {
      if (seen[i]) continue;
      if (const auto m = read_marker(dir, todo[i].id)) {
        seen[i] = true;
        ++reported;
        progress.point_done(todo[i], *m);
      }
    }
    return reported == todo.size();
  });
  progress.close();
  return report(dir, out);
}

}  // namespace

int sweep_command(const SweepOptions& o, std::ostream& out) {
  check_options(o);
  const auto def = make_definition(o.scenario, o.sets, o.grid, o.zip, o.sweep_file);
  const auto points = make_points(def);
  check_points(def, points);
  if (o.backend == "slurm") check_slurm_clients();
  const bool fresh = !fs::exists(o.out);
  const SweepDir dir = sweep_dir(o.out);
  init_dir(dir, def, points);
  const std::vector<Point> todo = points_to_run(dir, def, points);
  Progress progress(std::cerr, ::isatty(2), points.size(), points.size() - todo.size());
  if (todo.size() < points.size())
    std::cerr << "sweep: resuming " << dir.root.string() << ": " << points.size() - todo.size() << " of "
              << points.size() << " points already done\n";
  if (o.backend == "local") {
    run_local(dir, def, todo, o.jobs > 0 ? o.jobs : 1, "/proc/self/exe", progress);
    progress.close();
    return report(dir, out);
  }
  if (todo.empty()) return report(dir, out);
  return run_on_slurm(o, dir, fresh, todo, progress, out);
}

int sweep_collect_command(const std::string& dir, std::ostream& out) { return report(sweep_dir(dir), out); }

int sweep_run_point_command(const std::string& path, long index) {
  const SweepDir dir = sweep_dir(path);
  const auto def = load_definition(dir);
  const auto points = load_points(dir);
  if (index < 0 || static_cast<size_t>(index) >= points.size())
    throw ScenarioError("run-point", "index " + std::to_string(index) + " outside 0.." + std::to_string(points.size() - 1));
  const Point& p = points[static_cast<size_t>(index)];
  if (is_final(read_marker(dir, p.id))) return 0;
  const auto o = finish_point(dir, p, util::wait_for(start_point(dir, def, p, "/proc/self/exe")));
  std::cout << "sweep point " << p.id << ": " << o.status << (o.error.empty() ? "" : " (" + o.error + ")") << "\n";
  return 0;
}

}  // namespace llmsim::sweep
