#pragma once
// The points of a sweep and the sweep directory that holds them:
//   DIR/sweep.json        the definition (definition.hpp), compared on every rerun
//   DIR/points.jsonl      the plan: one line {"index", "id", "set": ["k=v", ...], "params": {"k": value}} per point
//   DIR/runs/<id>/        the point's `llmsim run` output (summary.json, trace.json, ...)
//   DIR/runs/<id>.log     its stdout and stderr
//   DIR/runs/<id>.done    its marker (point_run.hpp), written when the run has ended
//   DIR/results.csv, DIR/results.jsonl  the table (results.hpp);  DIR/slurm/  the SLURM job (slurm.hpp)
// Point ids are the index, zero-padded to at least 4 digits ("0007"); a SLURM array task's id is the index.
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "llmsim/sweep/definition.hpp"

namespace llmsim::sweep {

struct Point {
  size_t index = 0;
  std::string id;
  std::vector<std::string> sets;  ///< the point's "key=value" overrides (after the definition's shared ones)
  nlohmann::json params;          ///< key -> the value as apply_override parses it
};

/// Paths inside a sweep directory (see above).
struct SweepDir {
  std::filesystem::path root;
  std::filesystem::path definition() const { return root / "sweep.json"; }
  std::filesystem::path plan() const { return root / "points.jsonl"; }
  std::filesystem::path runs() const { return root / "runs"; }
  std::filesystem::path run(const std::string& id) const { return runs() / id; }
  std::filesystem::path log(const std::string& id) const { return runs() / (id + ".log"); }
  std::filesystem::path marker(const std::string& id) const { return runs() / (id + ".done"); }
  std::filesystem::path slurm() const { return root / "slurm"; }
};

/// All points of `d`, in index order. Throws ScenarioError for a value apply_override rejects.
std::vector<Point> make_points(const SweepDefinition& d);

/// Checks before any run that the sweep can work: resolves points (as `llmsim run` would) until one is a valid
/// scenario. If none is, the sweep is a scenario-level error: the first point's error, named after the
/// --grid/--zip key it concerns (an unknown key: "--grid parallelism.tpp: /parallelism/tpp: unknown key; ...").
/// Invalid combinations next to a valid point are left to the runs (status "invalid").
void check_points(const SweepDefinition& d, const std::vector<Point>& points);

/// Creates DIR with sweep.json and points.jsonl, or checks that an existing DIR holds the same sweep.
/// Throws ScenarioError("--out DIR", ...) naming the difference, or if DIR is a non-empty non-sweep directory.
void init_dir(const SweepDir& dir, const SweepDefinition& d, const std::vector<Point>& points);

/// Reads DIR/sweep.json and DIR/points.jsonl; ScenarioError if DIR is not a sweep directory.
SweepDefinition load_definition(const SweepDir& dir);
std::vector<Point> load_points(const SweepDir& dir);

}  // namespace llmsim::sweep
