#include "llmsim/run/training_run.hpp"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <chrono>
#include <fstream>
#include <limits>
#include <memory>
#include <optional>

#include "llmsim/engine/engine.hpp"
#include "llmsim/hardware/compute_model.hpp"
#include "llmsim/report/moe_report.hpp"
#include "llmsim/report/output_dir.hpp"
#include "llmsim/report/summary.hpp"
#include "llmsim/report/trace.hpp"
#include "llmsim/run/chunk_search.hpp"
#include "llmsim/run/fault_run.hpp"
#include "llmsim/strategy/training_strategies.hpp"
#include "llmsim/workload/build_plan.hpp"

namespace llmsim::run {

namespace {

/// Trace ranks no simulated worker holds (their replicas folded away, workload/replica_fold.hpp): a warning, as
/// they get no track; their replicas do what the simulated ones do.
void warn_folded_trace_ranks(const std::string& name, const report::TraceSelection& sel, const workload::Workload& w) {
  std::vector<bool> held(sel.ranks.empty() ? 0 : sel.ranks.back() + 1, false);
  for (const auto& wk : w.workers)
    for (int g = 0; g < wk.width && wk.first_rank + g < static_cast<int>(held.size()); ++g) held[wk.first_rank + g] = true;
  const auto missing = std::count_if(sel.ranks.begin(), sel.ranks.end(), [&](int r) { return !held[r]; });
  if (missing > 0)
    spdlog::warn("{}: {} of the output.trace_ranks are in data-parallel replicas folded away (network.fold_replicas): "
                 "no tracks for them; set network.fold_replicas=false to trace them", name, missing);
}

nlohmann::json simulate(const scenario::Scenario& s, const strategy::TrainingStrategies& strategies,
                        std::optional<report::OutputDir>& out, std::chrono::steady_clock::time_point wall_start,
                        const nlohmann::json& search);

/// Whether the job fits in memory whatever S_p: the gradient sync's state memory is the ZeRO stage's, not the
/// chunk's, so the plan with the largest chunk (the fewest collectives to plan) says it.
bool fits_any_chunk(const scenario::Scenario& s) {
  const auto c = with_gradient_chunk(s, strategy::kMaxGradientChunkBytes);
  return workload::fits_memory(
      workload::plan_training(c, hardware::ComputeModel(c.hardware), strategy::build_training_strategies(c)), c);
}

}  // namespace

double reported_iteration_time(const nlohmann::json& summary) {
  return summary.contains("iteration_time_s") ? summary["iteration_time_s"].get<double>()
                                              : std::numeric_limits<double>::infinity();
}

double iteration_time(const scenario::Scenario& s) { return reported_iteration_time(run_training(s, "")); }

nlohmann::json run_training(const scenario::Scenario& s, const std::string& out_dir) {
  if (s.faults.enabled()) return run_faults(s, out_dir);
  const auto wall_start = std::chrono::steady_clock::now();
  std::optional<report::OutputDir> out;  // first: a bad --out fails before any work
  if (!out_dir.empty()) out.emplace(out_dir);
  const auto strategies = strategy::build_training_strategies(s);
  if (!strategies.moe_pipeline->searches_gradient_chunk()) return simulate(s, strategies, out, wall_start, nullptr);
  if (!fits_any_chunk(s)) {  // out of memory whatever S_p: reported as such, without a search
    scenario::Scenario any = with_gradient_chunk(s, strategy::kMaxGradientChunkBytes);
    any.resolved = s.resolved;
    return simulate(any, strategy::build_training_strategies(any), out, wall_start, nullptr);
  }
  const auto search = search_gradient_chunk(s, iteration_time);
  spdlog::info("{}: S_p = {:.0f} KiB after {} simulations", s.name, search.best_bytes / 1024, search.evaluations.size());
  scenario::Scenario best = with_gradient_chunk(s, search.best_bytes);
  best.resolved = s.resolved;  // the scenario as written ("auto"); the choice is in the summary
  return simulate(best, strategy::build_training_strategies(best), out, wall_start, search.to_json());
}

namespace {

nlohmann::json simulate(const scenario::Scenario& s, const strategy::TrainingStrategies& strategies,
                        std::optional<report::OutputDir>& out, std::chrono::steady_clock::time_point wall_start,
                        const nlohmann::json& search) {
  const hardware::ComputeModel cm(s.hardware);
  const auto plan = workload::build_plan(s, cm, strategies);
  spdlog::debug("{}: {} workers (tp groups), {} micro-batches per pipeline, v={}", s.name, plan.workload.workers.size(),
               plan.micro_batches, plan.virtual_stages);

  std::optional<report::Recorder> rec;
  if (workload::fits_memory(plan, s)) {
    const auto traced = out && (s.output.trace || s.output.events_csv) ? report::trace_selection(s.output)
                                                                       : report::TraceSelection{};
    if (plan.layout.simulated_dp < plan.layout.dp) warn_folded_trace_ranks(s.name, traced, plan.workload);
    rec.emplace(engine::run_workload(plan.workload, s, report::traced_workers(plan.workload, traced)));
    if (out) report::write_text(out->path("links.csv"), report::links_csv(rec->links()));
    if (out && !plan.moe.empty()) {
      report::write_text(out->path("moe_load.csv"), report::moe_load_csv(plan.moe));
      report::write_text(out->path("moe_traffic.csv"), report::moe_traffic_csv(plan.moe));
    }
    if (out && s.output.trace) {
      std::ofstream trace(out->path("trace.json"));
      report::write_trace(trace, plan.workload, *rec, traced);
    }
    if (out && s.output.events_csv) {
      std::ofstream events(out->path("events.csv"));
      report::write_events_csv(events, plan.workload, *rec, traced);
    }
  } else {
    spdlog::warn("{}: does not fit in {:.1f} GiB of HBM; not simulated (status oom)", s.name,
                 s.hardware.memory_bytes / 1073741824.0);
  }
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start).count();
  auto summary = report::training_summary(s, plan, rec ? &*rec : nullptr, wall);
  if (!search.is_null()) summary["moe_pipeline_search"] = search;
  if (out) {
    report::write_text(out->path("summary.json"), summary.dump(2) + "\n");
    report::write_text(out->path("scenario.resolved.json"), s.resolved.dump(2) + "\n");
    out->commit();
  }
  return summary;
}

}  // namespace

}  // namespace llmsim::run
