#include "llmsim/run/fault_run.hpp"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <optional>

#include "llmsim/faults/timeline.hpp"
#include "llmsim/hardware/compute_model.hpp"
#include "llmsim/model/moe.hpp"
#include "llmsim/model/optimizer.hpp"
#include "llmsim/report/fault_report.hpp"
#include "llmsim/report/output_dir.hpp"
#include "llmsim/run/child_process.hpp"
#include "llmsim/run/training_run.hpp"
#include "llmsim/strategy/training_strategies.hpp"
#include "llmsim/workload/training.hpp"

namespace llmsim::run {
namespace {

/// The scenario without failures on `nodes` nodes, the data-parallel degree scaled alike and the global batch
/// re-balanced (Oobleck): each replica takes ceil(batch / dp) samples in micro-batches of the same size (the last
/// rounded up, and their count up to what the schedule can run: interleaved 1F1B needs a multiple of pp), so the
/// iteration is that of the most loaded replica. A typed copy of the resolved scenario: only these fields change,
/// and it writes no outputs (its resolved JSON stays the original's).
scenario::Scenario plain(const scenario::Scenario& s, int nodes) {
  scenario::Scenario p = s;
  p.faults = scenario::Faults{};
  p.strategies.fault_tolerance = {"none", {}};  // the plain job: no module (a template may be a single node)
  p.cluster.nodes = nodes;
  const long long dp = static_cast<long long>(s.parallelism.dp) * nodes / s.cluster.nodes;
  const long long samples = (s.training.global_batch + dp - 1) / dp, mb = s.training.micro_batch;
  const auto schedule = strategy::build_training_strategies(s).schedule;
  const long long multiple = schedule->micro_batch_multiple(s.parallelism.pp);
  const long long m = std::max<long long>(schedule->min_micro_batches(s.parallelism.pp),
                                          ((samples + mb - 1) / mb + multiple - 1) / multiple * multiple);
  p.parallelism.dp = static_cast<int>(dp);
  p.training.global_batch = static_cast<int>(dp * m * mb);
  return p;
}

/// Whether the job has a template on `nodes` nodes: its data-parallel degree scales to a whole number there, which
/// expert parallelism still divides (without one, the job waits for nodes: docs/faults.md).
bool has_template(const scenario::Scenario& s, int nodes) {
  const long long scaled = static_cast<long long>(s.parallelism.dp) * nodes;
  return scaled % s.cluster.nodes == 0 && scaled / s.cluster.nodes % s.parallelism.ep == 0;
}

/// summary.json of the failure-free job on `nodes` nodes, simulated in a child process ("status" "oom" when it
/// does not fit).
nlohmann::json failure_free_summary(const scenario::Scenario& s, int nodes) {
  return nlohmann::json::parse(in_child_bytes([&] { return run_training(plain(s, nodes), "").dump(); },
                                              "failure-free iteration on " + std::to_string(nodes) + " nodes"));
}

/// Its iteration [s], or -1 when it does not fit in memory.
double iteration_of(const nlohmann::json& summary) {
  const double t = reported_iteration_time(summary);
  return std::isfinite(t) ? t : -1.0;
}

/// The failure-free run's summary without what the fault summary states itself.
nlohmann::json without_header(nlohmann::json summary) {
  for (const char* key : {"scenario", "model", "hardware", "gpus", "llmsim_version", "wall_time_s"}) summary.erase(key);
  return summary;
}

/// Numbers of nodes up that the failures reach.
std::set<int> up_counts(const std::vector<faults::Failure>& failures, int nodes) {
  std::vector<std::pair<double, int>> changes;
  for (const auto& f : failures) changes.push_back({f.time, -1}), changes.push_back({f.time + f.duration, +1});
  std::sort(changes.begin(), changes.end(), [](const auto& a, const auto& b) {
    return a.first != b.first ? a.first < b.first : a.second > b.second;  // repairs before failures at one instant
  });
  std::set<int> out;
  int up = nodes;
  for (const auto& [t, d] : changes)
    if ((up += d) > 0 && up < nodes) out.insert(up);
  return out;
}

strategy::JobCosts job_costs(const scenario::Scenario& s, const strategy::TrainingStrategies& strategies) {
  const hardware::ComputeModel cm(s.hardware);
  const auto plan = workload::build_training(s, cm, strategies);
  strategy::JobCosts c;
  c.nodes = s.cluster.nodes;
  c.group_nodes = std::max(1, s.cluster.nodes / s.parallelism.pp);
  c.tokens_per_iteration = plan.tokens;
  const double e = model::bytes_per_element(model::LayerShape::from(s).precision);
  c.checkpoint_bytes = model::model_params(s.model) * (e + model::optimizer_state_bytes(s));
  c.node_bandwidth = s.cluster.nics_per_node * s.cluster.nic_bandwidth * s.hardware.calibration.network_efficiency;
  for (const auto& st : plan.stages) {
    c.worker_memory = std::max(c.worker_memory, st.memory.total());
    c.node_state_bytes = std::max(c.node_state_bytes, (st.memory.weights + st.memory.optimizer) * s.cluster.gpus_per_node);
  }
  for (const auto& wk : plan.workload.workers) {
    double f = 0, b = 0;
    for (const auto& op : wk.ops) {
      const auto* compute = std::get_if<workload::ComputeOp>(&op);
      if (compute && compute->step.pass != workload::Pass::None)  // not the optimizer
        (compute->step.pass == workload::Pass::Forward ? f : b) += plan.workload.costs[compute->cost].duration;
    }
    c.worker_forward = std::max(c.worker_forward, f / plan.workload.iterations);
    c.worker_backward = std::max(c.worker_backward, b / plan.workload.iterations);
  }
  return c;
}

}  // namespace

TimelineWork timeline_work(const scenario::Scenario& s) {
  const auto [failures, mtbf] = faults::failures_of(s);
  const auto strategies = strategy::build_training_strategies(s);
  const double interval = strategies.fault_tolerance->checkpoint_interval(job_costs(s, strategies), mtbf);
  const double checkpoints = interval > 0 ? s.faults.horizon / interval : 0;
  return {3.0 * static_cast<double>(failures.size()) * s.cluster.nodes, checkpoints * s.cluster.nodes};
}

nlohmann::json run_faults(const scenario::Scenario& s, const std::string& out_dir) {
  const auto wall_start = std::chrono::steady_clock::now();
  std::optional<report::OutputDir> out;
  if (!out_dir.empty()) out.emplace(out_dir);
  const auto [failures, mtbf] = faults::failures_of(s);
  const auto strategies = strategy::build_training_strategies(s);
  const strategy::FaultTolerance* ft = strategies.fault_tolerance.get();
  strategy::JobCosts c = job_costs(s, strategies);
  const auto failure_free = failure_free_summary(s, s.cluster.nodes);
  c.iteration = iteration_of(failure_free);
  if (c.iteration <= 0) throw SimulationError(s.name + ": the failure-free job does not fit in memory");
  nlohmann::json templates = nlohmann::json::array();
  for (int n : ft->templates(up_counts(failures, s.cluster.nodes))) {
    if (!has_template(s, n)) continue;
    const auto plain_run = failure_free_summary(s, n);
    const double it = c.iteration_on_nodes[n] = iteration_of(plain_run);
    templates.push_back({{"nodes", n}, {"iteration_time_s", it > 0 ? nlohmann::json(it) : nlohmann::json(nullptr)},
                         {"parallelism", plain_run["parallelism"]}});
  }
  spdlog::info("{}: {} failures drawn over {:.1f} h (a job that stops meets only those before); failure-free "
               "iteration {:.3f} s", s.name, failures.size(),
               s.faults.horizon / 3600, c.iteration);
  const auto timeline = faults::run_timeline(s, failures, *ft, c, mtbf);
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start).count();
  auto summary = report::fault_summary(s, c, timeline, ft->report(c), ft->checkpoint_interval(c, mtbf), wall);
  summary["failure_free_run"] = without_header(failure_free);
  if (!templates.empty()) summary["templates"] = templates;
  if (out) {
    report::write_text(out->path("summary.json"), summary.dump(2) + "\n");
    report::write_text(out->path("throughput.csv"), report::throughput_csv(timeline, c, s.faults.horizon, s.faults.sample));
    report::write_text(out->path("fault_trace.json"), report::fault_trace(timeline, s.cluster.nodes));
    report::write_text(out->path("scenario.resolved.json"), s.resolved.dump(2) + "\n");
    out->commit();
  }
  return summary;
}

}  // namespace llmsim::run
