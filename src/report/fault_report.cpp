#include "llmsim/report/fault_report.hpp"

#include <algorithm>
#include <cmath>
#include <sstream>

#include "llmsim/report/text_table.hpp"

namespace llmsim::report {

using nlohmann::json;

namespace {
/// The throughput drop split by cause, as fractions of the failure-free throughput over the horizon H (T the plain
/// job's failure-free iteration): lost work (lost iterations x T), stalled, waiting, checkpointing, stopped (after
/// the job stopped), and running slower than T: with every node up (the module's own overhead, e.g. Bamboo's
/// redundant computation) or with nodes down (degraded). They sum to throughput_drop, since the horizon is split
/// into running, stalled, waiting, checkpointing and stopped time.
json loss_by_cause(const faults::TimelineResult& r, double T, double H) {
  double running = 0, healthy = 0, degraded = 0;
  for (const auto& run : r.running) {
    const double d = run.t1 - run.t0, slower = d * (1 - T / run.iteration);
    running += d;
    (run.down > 0 ? degraded : healthy) += slower;
  }
  const double stopped = std::max(0.0, H - running - r.stall_time - r.wait_time - r.checkpoint_time);
  return {{"lost_work", r.lost_iterations * T / H}, {"stall", r.stall_time / H},    {"wait", r.wait_time / H},
          {"checkpoint", r.checkpoint_time / H},     {"stopped", stopped / H},       {"overhead_all_up", healthy / H},
          {"degraded", degraded / H}};
}
}  // namespace

json fault_summary(const scenario::Scenario& s, const strategy::JobCosts& c, const faults::TimelineResult& r,
                   const strategy::ModuleNumbers& module, double checkpoint_interval, double wall_seconds) {
  const double horizon = s.faults.horizon, hours = 3600;
  const double failure_free = c.tokens_per_iteration / c.iteration;
  const double effective = r.net_iterations() * c.tokens_per_iteration / horizon;
  json out;
  out["scenario"] = s.name;
  out["model"] = s.model.name;
  out["hardware"] = s.hardware.name;
  out["gpus"] = s.cluster.total_gpus();
  out["status"] = "ok";
  out["llmsim_version"] = LLMSIM_VERSION;
  out["iteration_time_s"] = c.iteration;  // failure-free
  out["tokens_per_s"] = effective;
  json f;
  f["process"] = s.faults.process.name;
  f["fault_tolerance"] = s.strategies.fault_tolerance.name;
  f["horizon_h"] = horizon / hours;
  f["failures"] = r.failures;
  f["failure_free_tokens_per_s"] = failure_free;
  f["effective_tokens_per_s"] = effective;
  f["throughput_drop"] = 1 - effective / failure_free;
  f["loss"] = loss_by_cause(r, c.iteration, horizon);
  f["computed_iterations"] = r.computed_iterations;
  f["lost_iterations"] = r.lost_iterations;
  f["lost_gpu_hours"] = r.lost_iterations * c.iteration * double(s.cluster.total_gpus()) / hours;
  f["stall_h"] = r.stall_time / hours;
  f["wait_h"] = r.wait_time / hours;
  f["checkpoint_h"] = r.checkpoint_time / hours;
  f["degraded_h"] = r.degraded_time / hours;
  f["checkpoints"] = r.checkpoints;
  f["checkpoint_interval_s"] = checkpoint_interval;
  f["stopped_at_h"] = r.stopped_at < 0 ? json(nullptr) : json(r.stopped_at / hours);
  f["module"] = json::object();
  for (const auto& [key, value] : module) f["module"][key] = value ? json(*value) : json(nullptr);
  out["faults"] = f;
  out["wall_time_s"] = wall_seconds;
  return out;
}

std::string fault_summary_table(const json& s) {
  const auto& f = s["faults"];
  std::ostringstream os;
  auto row = [&](const std::string& label, const std::string& value) { os << table_row(label, value); };
  const auto num = format_number;
  os << "llmsim " LLMSIM_VERSION " - " << s["scenario"].get<std::string>() << " under failures\n";
  row("model / hardware", s["model"].get<std::string>() + " on " + std::to_string(s["gpus"].get<long long>()) + " x " +
                              s["hardware"].get<std::string>());
  row("failures / module", f["process"].get<std::string>() + ", " + std::to_string(f["failures"].get<int>()) +
                               " failures in " + num(f["horizon_h"].get<double>(), "%.1f h") + "; " +
                               f["fault_tolerance"].get<std::string>());
  row("failure-free", num(f["failure_free_tokens_per_s"].get<double>(), "%.0f tokens/s") + " (iteration " +
                          num(s["iteration_time_s"].get<double>(), "%.3f s") + ")");
  row("effective", num(f["effective_tokens_per_s"].get<double>(), "%.0f tokens/s") + " (drop " +
                       num(100 * f["throughput_drop"].get<double>(), "%.2f%%") + ")");
  row("lost work", num(f["lost_iterations"].get<double>(), "%.1f iterations") + ", " +
                       num(f["lost_gpu_hours"].get<double>(), "%.1f GPU-hours"));
  std::string causes;
  for (const auto& [cause, share] : f["loss"].items())
    if (share.get<double>() > 5e-5) causes += (causes.empty() ? "" : ", ") + cause + " " + num(100 * share.get<double>(), "%.2f%%");
  row("drop by cause", causes.empty() ? "none" : causes);
  row("stalled / waiting", num(f["stall_h"].get<double>(), "%.2f h") + " / " + num(f["wait_h"].get<double>(), "%.2f h"));
  row("checkpoints / degraded", std::to_string(f["checkpoints"].get<int>()) + " (" +
                                    num(f["checkpoint_h"].get<double>(), "%.2f h") + ") / " +
                                    num(f["degraded_h"].get<double>(), "%.2f h"));
  if (!f["stopped_at_h"].is_null()) row("stopped at", num(f["stopped_at_h"].get<double>(), "%.2f h"));
  row("wall time", num(s["wall_time_s"].get<double>(), "%.2f s"));
  return os.str();
}

std::string throughput_csv(const faults::TimelineResult& r, const strategy::JobCosts& c, double horizon, double sample) {
  const size_t buckets = static_cast<size_t>(std::ceil(horizon / sample));
  std::vector<double> tokens(buckets, 0);
  std::vector<int> down(buckets, 0);
  for (const auto& run : r.running)
    for (size_t b = static_cast<size_t>(run.t0 / sample); b < buckets && b * sample < run.t1; ++b) {
      const double overlap = std::min(run.t1, (b + 1) * sample) - std::max(run.t0, b * sample);
      if (overlap > 0) tokens[b] += overlap / run.iteration * c.tokens_per_iteration;
    }
  for (const auto& e : r.events)  // changes of the number of nodes down, summed below
    if ((e.kind == "failure" || e.kind == "repair") && e.start / sample < buckets)
      down[static_cast<size_t>(e.start / sample)] += e.kind == "failure" ? 1 : -1;
  std::ostringstream os;
  os << "time_h,tokens_per_s,down_nodes\n";
  int now_down = 0;
  for (size_t b = 0; b < buckets; ++b) {
    const double start = b * sample, end = std::min(horizon, start + sample);
    now_down += down[b];
    os << (start + end) / 2 / 3600 << "," << tokens[b] / (end - start) << "," << std::max(0, now_down) << "\n";
  }
  return os.str();
}

std::string fault_trace(const faults::TimelineResult& r, int nodes) {
  json events = json::array();
  const int job = nodes;  // the job's track after the nodes'
  for (int n = 0; n <= nodes; ++n)
    events.push_back({{"name", "thread_name"}, {"ph", "M"}, {"pid", 0}, {"tid", n},
                      {"args", {{"name", n < nodes ? "node " + std::to_string(n) : "job"}}}});
  std::vector<double> down_since(nodes, -1);
  auto slice = [&](const std::string& name, int tid, double t0, double t1) {
    events.push_back({{"name", name}, {"ph", "X"}, {"pid", 0}, {"tid", tid}, {"ts", t0 * 1e6}, {"dur", (t1 - t0) * 1e6}});
  };
  for (const auto& e : r.events) {
    if (e.kind == "failure") {
      events.push_back({{"name", "failure"}, {"ph", "i"}, {"s", "t"}, {"pid", 0}, {"tid", e.node}, {"ts", e.start * 1e6}});
      down_since[e.node] = e.start;
    } else if (e.kind == "repair") {
      slice("down", e.node, down_since[e.node], e.start);
      down_since[e.node] = -1;
    } else if (e.kind == "stop") {
      events.push_back({{"name", "job stopped"}, {"ph", "i"}, {"s", "g"}, {"pid", 0}, {"tid", job}, {"ts", e.start * 1e6}});
    } else if (e.end > e.start) {
      slice(e.kind, job, e.start, e.end);
    }
  }
  for (const auto& run : r.running)
    if (run.down > 0) slice("degraded", job, run.t0, run.t1);
  return json{{"traceEvents", events}, {"displayTimeUnit", "ms"}}.dump() + "\n";
}

}  // namespace llmsim::report
