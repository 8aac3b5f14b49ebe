#include "llmsim/run/serving_run.hpp"

#include <spdlog/spdlog.h>

#include <chrono>
#include <cmath>
#include <memory>
#include <sstream>

#include "llmsim/report/output_dir.hpp"
#include "llmsim/report/serving_report.hpp"
#include "llmsim/run/child_process.hpp"
#include "llmsim/serving/simulation.hpp"
#include "llmsim/serving/workload.hpp"
#include "llmsim/util/error.hpp"
#include "llmsim/util/limits.hpp"

namespace llmsim::run {
namespace {

/// Mean request rate of the workload at `scale` [requests/s]: requests over their arrival span.
double request_rate(const std::vector<serving::Request>& r) {
  if (r.size() < 2 || r.back().arrival <= r.front().arrival) return 0;
  return (r.size() - 1) / (r.back().arrival - r.front().arrival);
}

struct Probe {
  double scale = 0, rate = 0, attainment = 0;
};

/// SLO attainment at `scale`, simulated in a child process.
Probe probe(const scenario::Scenario& s, double scale) {
  const auto requests = serving::make_requests(s, scale);
  const double attainment = in_child(
      [&]() {
        const auto r = serving::simulate_serving(s, requests);
        return report::serving_summary(s, r, 0)["serving"]["slo"]["attainment"].get<double>();
      },
      "capacity probe at rate_scale " + std::to_string(scale));
  spdlog::info("capacity probe: rate_scale {:.4g} ({:.3g} req/s): SLO attainment {:.1f}%", scale,
               request_rate(requests), 100 * attainment);
  return {scale, request_rate(requests), attainment};
}

/// Bisection on log(rate_scale); returns the probes in order and the capacity (0 when even the lowest fails).
double search_capacity(const scenario::Scenario& s, std::vector<Probe>& probes) {
  const auto& sv = s.serving;
  const auto meets = [&](double scale) {
    probes.push_back(probe(s, scale));
    return probes.back().attainment >= sv.capacity_attainment;
  };
  double lo = 1 / sv.capacity_max_scale, hi = sv.capacity_max_scale;
  if (!meets(lo)) return 0;
  if (meets(hi)) return hi;
  while (hi / lo - 1 > sv.capacity_tolerance) {
    const double mid = std::sqrt(lo * hi);
    (meets(mid) ? lo : hi) = mid;
  }
  return lo;
}

std::string capacity_csv(const std::vector<Probe>& probes) {
  std::ostringstream out;
  out.precision(9);
  out << "rate_scale,requests_per_s,slo_attainment\n";
  for (const auto& p : probes) out << p.scale << ',' << p.rate << ',' << p.attainment << '\n';
  return out.str();
}

/// One warning line on stderr when requests were rejected or cut (summary.json "admission"), none otherwise.
void warn_admission(const std::string& name, long requests, const nlohmann::json& a) {
  const int context = a["max_seq_len"];
  const std::vector<std::pair<const char*, std::string>> kinds = {
      {"rejected_context", " rejected (a prompt of " + std::to_string(context) + " tokens or more)"},
      {"truncated_prompts", " prompts truncated to their last " + std::to_string(context - 1) + " tokens"},
      {"capped_outputs", " outputs stopped at the context"},
      {"rejected_kv_cache", " rejected (larger than a replica's KV cache)"}};
  std::string parts;
  for (const auto& [key, what] : kinds)
    if (a[key].get<long>() > 0) parts += (parts.empty() ? "" : ", ") + std::to_string(a[key].get<long>()) + what;
  if (!parts.empty())
    spdlog::warn("{}: of {} requests, {} (model.max_seq_len {}, serving.context_overflow {})", name, requests, parts,
                 context, a["context_overflow"].get<std::string>());
}

}  // namespace

nlohmann::json run_serving(const scenario::Scenario& scenario, const std::string& out_dir) {
  const auto wall_start = std::chrono::steady_clock::now();
  std::unique_ptr<report::OutputDir> out;
  if (!out_dir.empty()) out = std::make_unique<report::OutputDir>(out_dir);  // fails before the run, not after
  scenario::Scenario s = scenario;
  std::vector<Probe> probes;
  double capacity = 0;
  if (s.serving.capacity_search) {
    capacity = search_capacity(s, probes);
    if (capacity > 0) s.serving.rate_scale = capacity;
  }
  const auto requests = serving::make_requests(s, s.serving.rate_scale);
  const auto result = serving::simulate_serving(s, requests);
  // kv_usage.csv has a row per replica and sample_s bucket of the run, known only now (as /faults/sample_s).
  if (const double rows = result.end / s.serving.sample * s.parallelism.dp; out && !(rows <= limits::kMaxCsvRows))
    throw ScenarioError("/serving/sample_s", "kv_usage.csv would hold " + plain_number(std::ceil(rows)) +
                                                 " rows over the run's " + plain_number(std::round(result.end)) +
                                                 " s on " + std::to_string(s.parallelism.dp) +
                                                 " replicas; at most 10,000,000: at least " +
                                                 plain_number(std::ceil(result.end * s.parallelism.dp / limits::kMaxCsvRows * 1e3) / 1e3) + " s here");
  spdlog::info("{}: {} requests over {:.1f} s on {} replicas", s.name, requests.size(),
               requests.back().arrival - requests.front().arrival, s.parallelism.dp);
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start).count();
  auto summary = report::serving_summary(s, result, wall);
  warn_admission(s.name, static_cast<long>(requests.size()), summary["serving"]["admission"]);
  if (s.serving.capacity_search) {
    nlohmann::json list = nlohmann::json::array();
    for (const auto& p : probes) list.push_back({{"rate_scale", p.scale}, {"requests_per_s", p.rate}, {"attainment", p.attainment}});
    summary["capacity"] = {{"rate_scale", capacity},
                           {"requests_per_s", capacity > 0 ? request_rate(requests) : 0.0},
                           {"attainment_target", s.serving.capacity_attainment},
                           {"probes", list}};
  }
  if (out) {
    report::write_text(out->path("summary.json"), summary.dump(2) + "\n");
    report::write_stream(out->path("requests.csv"), [&](std::ostream& o) { report::write_requests_csv(o, result); });
    report::write_stream(out->path("kv_usage.csv"),
                         [&](std::ostream& o) { report::write_kv_usage_csv(o, result, s.serving.sample); });
    if (s.output.trace)
      report::write_stream(out->path("trace.json"), [&](std::ostream& o) { report::write_serving_trace(o, result, s.serving); });
    if (s.serving.capacity_search) report::write_text(out->path("capacity.csv"), capacity_csv(probes));
    report::write_text(out->path("scenario.resolved.json"), s.resolved.dump(2) + "\n");
    out->commit();
  }
  return summary;
}

}  // namespace llmsim::run
