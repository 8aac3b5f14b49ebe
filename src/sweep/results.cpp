#include "llmsim/sweep/results.hpp"

#include <algorithm>
#include <fstream>

#include "llmsim/report/output_dir.hpp"
#include "llmsim/sweep/point_run.hpp"
#include "llmsim/workload/program.hpp"

namespace llmsim::sweep {

using nlohmann::json;
using nlohmann::ordered_json;

namespace {

struct Metric {
  std::string column, pointer;
};

Metric metric(const std::string& dotted) {
  std::string p = "/" + dotted;
  std::replace(p.begin(), p.end(), '.', '/');
  return {dotted, p};
}

std::vector<Metric> catalogue() {
  std::vector<Metric> m = {{"summary_status", "/status"}};
  for (const char* c : {"iteration_time_s", "tokens_per_s", "model_tflops_per_gpu", "hardware_tflops_per_gpu", "mfu",
                        "hfu", "pipeline_bubble_fraction", "exposed_comm_time_s", "peak_memory_bytes", "hbm_bytes",
                        "parallelism.dp", "parallelism.micro_batches"})
    m.push_back(metric(c));
  for (int c = 0; c < workload::kTimeCategories; ++c)
    m.push_back(metric(std::string("time_breakdown_s.") + workload::time_category_name(static_cast<workload::TimeCategory>(c))));
  for (const char* c :
       {"simulated_events", "moe.c_t", "moe.imbalance", "moe.imbalance_max", "moe.all_to_all_bytes_per_iteration",
        "faults.failures", "faults.failure_free_tokens_per_s", "faults.effective_tokens_per_s", "faults.throughput_drop",
        "faults.lost_iterations", "faults.lost_gpu_hours", "faults.stall_h", "faults.checkpoints", "serving.requests",
        "serving.admission.rejected", "serving.makespan_s", "serving.ttft_s.mean", "serving.ttft_s.p50", "serving.ttft_s.p90", "serving.ttft_s.p99",
        "serving.tpot_s.mean", "serving.tpot_s.p50", "serving.tpot_s.p90", "serving.tpot_s.p99", "serving.e2e_s.mean",
        "serving.e2e_s.p50", "serving.e2e_s.p99", "serving.throughput.requests_per_s",
        "serving.throughput.output_tokens_per_s", "serving.throughput.total_tokens_per_s", "serving.slo.attainment",
        "serving.slo.goodput_requests_per_s", "serving.kv_cache.mean_utilization", "serving.kv_cache.peak_utilization",
        "serving.batch_size.mean", "serving.preemptions", "wall_time_s"})
    m.push_back(metric(c));
  return m;
}

json value_at(const json& summary, const std::string& pointer) {
  const json::json_pointer p(pointer);
  if (!summary.contains(p)) return nullptr;
  const json& v = summary.at(p);
  if (!v.is_array()) return v;
  json best = nullptr;
  for (const auto& x : v)
    if (x.is_number() && (best.is_null() || x.get<double>() > best.get<double>())) best = x;
  return best;
}

std::string csv_cell(const ordered_json& v) {
  if (v.is_null()) return "";
  const std::string s = v.is_string() ? v.get<std::string>() : v.dump();
  if (s.find_first_of(",\"\n\r") == std::string::npos) return s;
  std::string q = "\"";
  for (char c : s) q += c == '"' ? std::string("\"\"") : std::string(1, c);
  return q + "\"";
}

}  // namespace

std::optional<json> read_summary(const SweepDir& dir, const std::string& id) {
  std::ifstream in(dir.run(id) / "summary.json");
  if (!in) return std::nullopt;
  try {
    return json::parse(in);
  } catch (const json::exception&) {
    return std::nullopt;
  }
}

Tally collect(const SweepDir& dir) {
  const auto def = load_definition(dir);
  const auto points = load_points(dir);
  std::vector<std::string> keys;
  for (const auto* axes : {&def.grid, &def.zip})
    for (const auto& a : *axes) keys.push_back(a.key);

  Tally t;
  std::vector<ordered_json> rows;
  std::vector<json> summaries;
  for (const auto& p : points) {
    ordered_json row;
    row["point"] = p.id;
    for (const auto& k : keys) row[k] = p.params.value(k, json());
    auto m = read_marker(dir, p.id);
    const auto summary = m && m->status == "ok" ? read_summary(dir, p.id) : std::nullopt;
    if (m && m->status == "ok" && !summary)
      m = Outcome{"failed", m->exit_code, "its summary.json is missing or unreadable (rerun the sweep to redo it)"};
    row["status"] = m ? m->status : "pending";
    row["error"] = m && !m->error.empty() ? json(m->error) : json();
    (!m ? t.pending : m->status == "ok" ? t.ok : m->status == "invalid" ? t.invalid : t.failed) += 1;
    summaries.push_back(summary.value_or(json::object()));
    rows.push_back(row);
  }
  for (const auto& metric : catalogue()) {
    if (std::find(keys.begin(), keys.end(), metric.column) != keys.end()) continue;
    std::vector<json> values;
    for (const auto& s : summaries) values.push_back(value_at(s, metric.pointer));
    if (std::all_of(values.begin(), values.end(), [](const json& v) { return v.is_null(); })) continue;
    for (size_t i = 0; i < rows.size(); ++i) rows[i][metric.column] = values[i];
  }

  std::string csv, jsonl;
  for (auto it = rows.front().begin(); it != rows.front().end(); ++it)
    csv += (it == rows.front().begin() ? "" : ",") + csv_cell(it.key());
  csv += "\n";
  for (const auto& row : rows) {
    std::string line;
    for (auto it = row.begin(); it != row.end(); ++it) line += (it == row.begin() ? "" : ",") + csv_cell(it.value());
    csv += line + "\n";
    jsonl += row.dump() + "\n";
  }
  report::write_atomically((dir.root / "results.csv").string(), csv);
  report::write_atomically((dir.root / "results.jsonl").string(), jsonl);
  return t;
}

}  // namespace llmsim::sweep
