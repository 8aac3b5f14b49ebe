#include "llmsim/report/summary.hpp"

#include <algorithm>
#include <numeric>
#include <sstream>

#include "llmsim/model/transformer.hpp"
#include "llmsim/platform/topology.hpp"
#include "llmsim/report/moe_report.hpp"
#include "llmsim/report/text_table.hpp"

namespace llmsim::report {

using nlohmann::json;
using workload::TimeCategory;

json links_summary(const std::vector<engine::LinkStat>& links) {
  double total = 0;
  size_t used = 0;
  for (const auto& l : links) {
    total += l.bytes;
    used += l.bytes > 0;
  }
  json hottest = json::array();
  for (size_t i = 0; i < links.size() && i < 5 && links[i].bytes > 0; ++i)
    hottest.push_back({{"link", links[i].name}, {"bytes", links[i].bytes}, {"mean_utilisation", links[i].mean_utilisation},
                       {"peak_utilisation", links[i].peak_utilisation}});
  return {{"count", links.size()}, {"used", used}, {"total_bytes", total}, {"hottest", hottest}};
}

std::string links_csv(const std::vector<engine::LinkStat>& links) {
  std::ostringstream os;
  os << "link,bandwidth_Bps,bytes,mean_utilisation,peak_utilisation\n";
  for (const auto& l : links)
    os << l.name << ',' << l.bandwidth << ',' << l.bytes << ',' << l.mean_utilisation << ',' << l.peak_utilisation << '\n';
  return os.str();
}

/// Energy of the job per iteration and per token, and a GPU's mean power (hardware/power_model.hpp: idle power
/// over the iteration plus the kernels' energy above it, the mean of the simulated GPUs); null without a power model.
json energy_summary(const scenario::Scenario& s, const Recorder& rec, double iteration_s, double tokens, int gpus) {
  const auto& power = s.hardware.power;
  if (!power.known()) return nullptr;
  double dynamic = 0;
  for (double e : rec.dynamic_energy()) dynamic += e;
  dynamic /= rec.dynamic_energy().size() * rec.iteration_ends().size();
  const double per_gpu = power.idle * iteration_s + dynamic;
  return {{"per_iteration_J", per_gpu * gpus}, {"per_token_J", per_gpu * gpus / tokens},
          {"mean_power_per_gpu_W", per_gpu / iteration_s}};
}

/// Mean time per iteration of `workers` by category; Idle is what the categories leave of the iteration `it`.
workload::TimeBreakdown mean_breakdown(const Recorder& rec, const std::vector<size_t>& workers, double it) {
  workload::TimeBreakdown mean{};
  const double n = double(workers.size()) * rec.iteration_ends().size();
  for (size_t w : workers)
    for (int c = 0; c < workload::kTimeCategories; ++c) mean[c] += rec.busy()[w][c] / n;
  double busy_total = 0;
  for (int c = 0; c < workload::kTimeCategories; ++c)
    if (c != static_cast<int>(TimeCategory::Idle)) busy_total += mean[c];
  mean[static_cast<int>(TimeCategory::Idle)] = std::max(0.0, it - busy_total);
  return mean;
}

json categories(const workload::TimeBreakdown& b) {
  json cats;
  for (int c = 0; c < workload::kTimeCategories; ++c) cats[workload::time_category_name(static_cast<TimeCategory>(c))] = b[c];
  return cats;
}

/// Per pipeline stage of the workers (Worker::stage): the mean over its workers (where a stage waits, and for whom).
json stage_breakdowns(const Recorder& rec, const workload::Workload& w, double it) {
  std::vector<std::vector<size_t>> of;
  for (size_t i = 0; i < w.workers.size(); ++i) {
    const auto st = static_cast<size_t>(std::max(0, w.workers[i].stage));
    if (st >= of.size()) of.resize(st + 1);
    of[st].push_back(i);
  }
  json out = json::array();
  for (size_t st = 0; st < of.size(); ++st) {
    if (of[st].empty()) continue;
    json row = categories(mean_breakdown(rec, of[st], it));
    row["stage"] = st;
    out.push_back(row);
  }
  return out;
}

namespace {
/// The layout as run: Megatron's combined 1F1B counts as applied when asked for (interleaved-1f1b ep_overlap) and
/// a steady phase pairs a forward with a backward on some stage (with every forward a warm-up forward there is none);
/// the tp overlap as it ran (none without tp collectives).
json parallelism_summary(const scenario::Scenario& s, const workload::TrainingPlan& plan) {
  const auto& schedule = s.strategies.pipeline_schedule;
  const auto pairs = [](const workload::StagePlan& st) {
    return std::any_of(st.order.begin(), st.order.end(), [](const auto& t) { return t.braided; });
  };
  const bool ep_overlap = schedule.params.has("ep_overlap") && schedule.params.flag("ep_overlap") &&
                          std::any_of(plan.stages.begin(), plan.stages.end(), pairs);
  // tp_comm_overlap "wgrad" hides a whole backward's tp collectives behind its weight gradients: a schedule that
  // splits every backward into B and W passes (zb-h1, zb-v) leaves nothing beside them, so none ran.
  const auto whole_backward = [](const workload::StagePlan& st) {
    return std::any_of(st.order.begin(), st.order.end(),
                       [](const auto& t) { return t.pass == strategy::PipelineTask::Pass::Backward; });
  };
  const std::string& asked = s.parallelism.tp_comm_overlap;
  const bool idle_wgrad = asked == "wgrad" && std::none_of(plan.stages.begin(), plan.stages.end(), whole_backward);
  return {{"tp", s.parallelism.tp}, {"pp", s.parallelism.pp}, {"dp", s.parallelism.dp},
          {"cp", s.parallelism.cp}, {"ep", s.parallelism.ep}, {"virtual_stages", plan.virtual_stages},
          {"micro_batches", plan.micro_batches}, {"pipeline_schedule", schedule.name},
          {"overlap_p2p_comm", plan.p2p_overlapped}, {"ep_overlap", ep_overlap},
          {"tp_comm_overlap", s.parallelism.tp > 1 && !idle_wgrad ? asked : std::string("none")},
          {"simulated_dp", plan.layout.simulated_dp}};
}

/// status (oom when a stage's peak exceeds HBM), hbm_bytes, peak_memory_bytes and memory_breakdown_bytes.
void add_memory(const scenario::Scenario& s, const workload::TrainingPlan& plan, json& out) {
  bool oom = false;
  json peaks = json::array(), breakdown = json::array();
  for (const auto& st : plan.stages) {
    peaks.push_back(st.memory.total());
    oom = oom || st.memory.total() > s.hardware.memory_bytes;
    breakdown.push_back({{"stage", st.stage}, {"layers", st.layers}, {"params_per_gpu", st.params},
                         {"max_in_flight", st.max_in_flight}, {"weights", st.memory.weights},
                         {"gradients", st.memory.gradients}, {"optimizer", st.memory.optimizer},
                         {"activations", st.memory.activations}, {"total", st.memory.total()}});
  }
  out["status"] = oom ? "oom" : "ok";
  out["hbm_bytes"] = s.hardware.memory_bytes;
  out["peak_memory_bytes"] = peaks;
  out["memory_breakdown_bytes"] = breakdown;
}

/// What the simulation measured: iteration times, throughput, MFU, the time breakdown, energy, links.
void add_timing(const scenario::Scenario& s, const workload::TrainingPlan& plan, const Recorder& rec, json& out) {
  const int gpus = s.cluster.total_gpus();
  const double peak = model::peak_flops(s.hardware, model::LayerShape::from(s).precision, "/training/precision");
  const auto& ends = rec.iteration_ends();
  json per_iter = json::array();
  double prev = 0, sum = 0;
  for (double e : ends) {
    per_iter.push_back(e - prev);
    sum += e - prev;
    prev = e;
  }
  const double it = sum / ends.size();
  std::vector<size_t> all(rec.busy().size());
  std::iota(all.begin(), all.end(), size_t{0});
  const workload::TimeBreakdown mean = mean_breakdown(rec, all, it);
  const double model_tflops = plan.model_flops / (it * gpus) / 1e12;
  const double hw_tflops = plan.hardware_flops / (it * gpus) / 1e12;
  out["iteration_time_s"] = it;
  out["iteration_times_s"] = per_iter;
  out["tokens_per_s"] = plan.tokens / it;
  out["tokens_per_s_per_gpu"] = plan.tokens / it / gpus;
  out["model_tflops_per_gpu"] = model_tflops;
  out["hardware_tflops_per_gpu"] = hw_tflops;
  out["mfu"] = model_tflops * 1e12 / peak;
  out["hfu"] = hw_tflops * 1e12 / peak;
  out["mfu_peak"] = s.training.precision;  // MFU and HFU are relative to this precision's dense peak, FP8 runs too
  out["pipeline_bubble_fraction"] = mean[static_cast<int>(TimeCategory::Idle)] / it;
  double exposed = 0;
  for (auto c : {TimeCategory::TpComm, TimeCategory::PpComm, TimeCategory::DpComm, TimeCategory::EpComm,
                 TimeCategory::CpComm})
    exposed += mean[static_cast<int>(c)];
  out["exposed_comm_time_s"] = exposed;
  out["time_breakdown_s"] = categories(mean);
  out["time_breakdown_by_stage_s"] = stage_breakdowns(rec, plan.workload, it);
  out["energy"] = energy_summary(s, rec, it, plan.tokens, gpus);
  out["simulated_events"] = rec.activities();
  out["links"] = links_summary(rec.links());
}
}  // namespace

json training_summary(const scenario::Scenario& s, const workload::TrainingPlan& plan, const Recorder* rec,
                      double wall_time_s) {
  json out;
  out["scenario"] = s.name;
  out["llmsim_version"] = LLMSIM_VERSION;
  out["gpus"] = s.cluster.total_gpus();
  out["hardware"] = s.hardware.name;
  out["software"] = s.software.name;
  out["model"] = s.model.name;
  out["parallelism"] = parallelism_summary(s, plan);
  // The cluster's worst cut into two halves of the nodes, per direction (null for one node, which has nothing to
  // cut, and where the topology cannot say).
  const double bisection =
      s.cluster.nodes < 2 ? 0 : platform::make_topology(s)->bisection_bandwidth(s.cluster, s.hardware);
  out["bisection_bandwidth_GBps"] = bisection > 0 ? json(bisection / 1e9) : json(nullptr);
  add_memory(s, plan, out);
  if (rec) add_timing(s, plan, *rec, out);
  if (!plan.moe.empty()) out["moe"] = moe_summary(s, plan.moe, plan.micro_batches);
  out["wall_time_s"] = wall_time_s;
  return out;
}

std::string summary_table(const json& s) {
  std::ostringstream os;
  auto row = [&](const std::string& label, const std::string& value) { os << table_row(label, value); };
  const auto num = format_number;
  const auto& p = s["parallelism"];
  os << "llmsim " << s["llmsim_version"].get<std::string>() << " - " << s["scenario"].get<std::string>() << "\n";
  row("model / hardware", s["model"].get<std::string>() + " on " + std::to_string(s["gpus"].get<int>()) + " x " +
                              s["hardware"].get<std::string>());
  row("parallelism", "tp " + std::to_string(p["tp"].get<int>()) + ", pp " + std::to_string(p["pp"].get<int>()) +
                         ", dp " + std::to_string(p["dp"].get<int>()) +
                         (p.value("cp", 1) > 1 ? ", cp " + std::to_string(p["cp"].get<int>()) : std::string()) +
                         (s.contains("moe") ? ", ep " + std::to_string(p["ep"].get<int>()) : std::string()) + ", " +
                         p["pipeline_schedule"].get<std::string>() +
                         " (v=" + std::to_string(p["virtual_stages"].get<int>()) + ", m=" +
                         std::to_string(p["micro_batches"].get<int>()) + ")");
  if (p.contains("simulated_dp") && p["simulated_dp"] != p["dp"])
    row("simulated replicas", std::to_string(p["simulated_dp"].get<int>()) + " of dp " +
                                  std::to_string(p["dp"].get<int>()) + ", the others identical (network.fold_replicas)");
  row("status", s["status"].get<std::string>());
  if (s.contains("iteration_time_s")) {
    row("iteration time", num(s["iteration_time_s"].get<double>(), "%.4f s"));
    row("throughput", num(s["tokens_per_s"].get<double>(), "%.0f tokens/s"));
    row("model TFLOP/s per GPU", num(s["model_tflops_per_gpu"].get<double>(), "%.1f") + "  (MFU " +
                                     num(100 * s["mfu"].get<double>(), "%.1f%%") + " of the " +
                                     s["mfu_peak"].get<std::string>() + " peak)");
    row("hardware TFLOP/s per GPU", num(s["hardware_tflops_per_gpu"].get<double>(), "%.1f") + "  (HFU " +
                                        num(100 * s["hfu"].get<double>(), "%.1f%%") + ")");
    row("pipeline bubble", num(100 * s["pipeline_bubble_fraction"].get<double>(), "%.1f%%"));
    row("exposed communication", num(s["exposed_comm_time_s"].get<double>(), "%.4f s"));
    os << "  time per GPU per iteration:\n";
    const double it = s["iteration_time_s"].get<double>();
    for (const auto& [k, v] : s["time_breakdown_s"].items())
      row("    " + k, num(v.get<double>(), "%.4f s") + num(100 * v.get<double>() / it, "  (%.1f%%)"));
  }
  double peak = 0;
  for (const auto& v : s["peak_memory_bytes"]) peak = std::max(peak, v.get<double>());
  row("peak memory (worst stage)", num(peak / 1073741824.0, "%.1f GiB") + " of " +
                                       num(s["hbm_bytes"].get<double>() / 1073741824.0, "%.1f GiB"));
  if (s.contains("energy") && !s["energy"].is_null())
    row("energy", num(s["energy"]["per_token_J"].get<double>(), "%.3g J per token") + ", " +
                      num(s["energy"]["mean_power_per_gpu_W"].get<double>(), "mean %.0f W per GPU"));
  if (s.contains("moe"))
    row("MoE C_T / imbalance", num(s["moe"]["c_t"].get<double>(), "%.2f destinations per token") + ", " +
                                   num(s["moe"]["imbalance"].get<double>(), "max/mean load %.2f"));
  if (s.contains("simulated_events")) row("simulated events", std::to_string(s["simulated_events"].get<long long>()));
  row("wall time", num(s["wall_time_s"].get<double>(), "%.2f s"));
  return os.str();
}

}  // namespace llmsim::report
