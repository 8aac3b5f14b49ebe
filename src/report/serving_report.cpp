#include "llmsim/report/serving_report.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <map>
#include <sstream>

#include "llmsim/report/text_table.hpp"

namespace llmsim::report {

using nlohmann::json;

double percentile(std::vector<double>& v, double q) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const double pos = q / 100 * (v.size() - 1);
  const size_t lo = static_cast<size_t>(std::floor(pos));
  const size_t hi = std::min(lo + 1, v.size() - 1);
  return v[lo] + (pos - lo) * (v[hi] - v[lo]);
}

namespace {

double tpot(const serving::RequestRecord& r) {
  return r.output_tokens > 1 ? (r.finished - r.first_token) / (r.output_tokens - 1) : 0;
}

json stats(std::vector<double> v) {
  double sum = 0;
  for (double x : v) sum += x;
  const double mean = v.empty() ? 0 : sum / v.size();
  return {{"mean", mean}, {"p50", percentile(v, 50)}, {"p90", percentile(v, 90)}, {"p99", percentile(v, 99)}};
}

/// Time-weighted KV use of one replica over [t0, t1): each step's use holds until the next step starts.
double kv_use(const std::vector<serving::StepRecord>& steps, double t0, double t1, double blocks, size_t& from) {
  double acc = 0;
  while (from + 1 < steps.size() && steps[from + 1].start <= t0) ++from;
  for (size_t i = from; i < steps.size() && steps[i].start < t1; ++i) {
    const double a = std::max(t0, steps[i].start);
    const double b = std::min(t1, i + 1 < steps.size() ? steps[i + 1].start : steps[i].end);
    if (b > a) acc += (b - a) * steps[i].kv_used;
  }
  return acc / (t1 - t0) / blocks;
}

/// Output tokens/s of each replica over the run's span (the replica that produced the output counts it).
json replica_output_rates(const serving::ServingResult& r, double span) {
  std::vector<double> tokens(r.steps.size(), 0);
  for (const auto& q : r.requests)
    if (serving::is_served(q.status)) tokens[q.replica] += q.output_tokens;
  json out = json::array();
  for (double t : tokens) out.push_back(span > 0 ? t / span : 0);
  return out;
}

}  // namespace

/// Energy of the serving GPUs from the first arrival to the last completion (hardware/power_model.hpp: idle power
/// of every GPU over the span plus the steps' energy above it), per served request and per output token; null
/// without a power model.
json serving_energy(const scenario::Scenario& s, const serving::ServingResult& r, double span, long served,
                    double output_tokens) {
  if (!s.hardware.power.known()) return nullptr;
  double total = s.hardware.power.idle * s.cluster.total_gpus() * span;
  for (double e : r.dynamic_energy) total += e;
  return {{"total_J", total},
          {"per_request_J", served > 0 ? total / served : 0},
          {"per_output_token_J", output_tokens > 0 ? total / output_tokens : 0},
          {"mean_power_per_gpu_W", span > 0 ? total / (span * s.cluster.total_gpus()) : 0}};
}

namespace {

/// What the served requests add up to (a request rejected at admission meets no SLO and counts only in `status`).
struct RequestTotals {
  std::vector<double> ttft, tpots, e2e, transfer;
  double output = 0, prompt = 0;
  long served = 0, capped = 0, met = 0, preemptions = 0;
  std::map<serving::Status, long> status;
};

RequestTotals request_totals(const scenario::Serving& sv, const serving::ServingResult& r) {
  RequestTotals a;
  for (const auto& q : r.requests) {
    ++a.status[q.status];
    if (!serving::is_served(q.status)) continue;
    ++a.served;
    a.capped += q.output_tokens < q.requested_output_tokens;
    a.ttft.push_back(q.first_token - q.arrival);
    if (q.output_tokens > 1) a.tpots.push_back(tpot(q));
    a.e2e.push_back(q.finished - q.arrival);
    if (q.prefill_replica != q.replica) a.transfer.push_back(q.kv_transfer);
    a.output += q.output_tokens;
    a.prompt += q.prompt_tokens;
    a.preemptions += q.preemptions;
    if (q.first_token - q.arrival <= sv.slo_ttft && tpot(q) <= sv.slo_tpot) ++a.met;
  }
  return a;
}

/// The replicas' steps over [first, end): batch sizes, KV use (time-weighted mean, peak), steps and busy time.
struct StepTotals {
  double kv_mean = 0, kv_peak = 0, busy = 0;
  long steps = 0, swapped_out = 0;
  json batch_size;
};

StepTotals step_totals(const serving::ServingResult& r, double first, double span) {
  StepTotals a;
  std::vector<double> batch;
  std::map<int, long> histogram;
  double batch_sum = 0;
  for (const auto& rs : r.steps) {
    size_t from = 0;
    if (!rs.empty() && span > 0) a.kv_mean += kv_use(rs, first, r.end, r.kv.blocks, from) / r.steps.size();
    for (const auto& st : rs) {
      batch.push_back(st.sequences);
      batch_sum += st.sequences;
      ++histogram[st.sequences];
      a.kv_peak = std::max(a.kv_peak, static_cast<double>(st.kv_used) / r.kv.blocks);
      a.busy += st.end - st.start;
      a.swapped_out += st.swapped_out;
      ++a.steps;
    }
  }
  json hist = json::object();
  for (const auto& [k, v] : histogram) hist[std::to_string(k)] = v;
  const double largest = batch.empty() ? 0 : *std::max_element(batch.begin(), batch.end());
  a.batch_size = {{"mean", batch.empty() ? 0 : batch_sum / batch.size()},
                  {"p50", percentile(batch, 50)},
                  {"p99", percentile(batch, 99)},
                  {"max", largest},
                  {"histogram", hist}};
  return a;
}

}  // namespace

json serving_summary(const scenario::Scenario& s, const serving::ServingResult& r, double wall_seconds) {
  const auto& sv = s.serving;
  RequestTotals a = request_totals(sv, r);
  const double first = r.requests.empty() ? 0 : r.requests.front().arrival;
  const double span = r.end - first, n = static_cast<double>(r.requests.size());
  const long rejected = a.status[serving::Status::RejectedContext] + a.status[serving::Status::RejectedKvCache];
  const StepTotals st = step_totals(r, first, span);
  json out = {
      {"requests", r.requests.size()},
      {"replicas", s.parallelism.dp},
      {"prefill_replicas", sv.prefill_replicas},
      {"tp", s.parallelism.tp},
      {"pp", s.parallelism.pp},
      {"engine", sv.engine.name},
      {"scheduler", sv.scheduler.name},
      {"router", sv.router.name},
      {"workload", sv.workload.name},
      {"rate_scale", sv.rate_scale},
      {"admission",
       {{"served", a.served},
        {"rejected", rejected},
        {"rejected_context", a.status[serving::Status::RejectedContext]},
        {"rejected_kv_cache", a.status[serving::Status::RejectedKvCache]},
        {"truncated_prompts", a.status[serving::Status::Truncated]},
        {"capped_outputs", a.capped},
        {"context_overflow", sv.context_overflow},
        {"max_seq_len", s.model.max_seq_len}}},
      {"makespan_s", span},
      {"ttft_s", stats(a.ttft)},
      {"tpot_s", stats(a.tpots)},
      {"e2e_s", stats(a.e2e)},
      {"throughput",
       {{"requests_per_s", span > 0 ? a.served / span : 0},
        {"output_tokens_per_s", span > 0 ? a.output / span : 0},
        {"output_tokens_per_s_per_replica", replica_output_rates(r, span)},
        {"total_tokens_per_s", span > 0 ? (a.output + a.prompt) / span : 0}}},
      {"slo",
       {{"ttft_s", sv.slo_ttft},
        {"tpot_s", sv.slo_tpot},
        {"attainment", n > 0 ? a.met / n : 0},
        {"goodput_requests_per_s", span > 0 ? a.met / span : 0}}},
      {"kv_cache",
       {{"blocks_per_replica", r.kv.blocks},
        {"block_size", r.kv.block_size},
        {"bytes_per_token_per_gpu", r.kv.bytes_per_token},
        {"weights_GB_per_gpu", r.kv.weight_bytes / 1e9},
        {"activations_GB_per_gpu", r.kv.activation_bytes / 1e9},
        {"mean_utilization", st.kv_mean},
        {"peak_utilization", st.kv_peak}}},
      {"batch_size", st.batch_size},
      {"preemptions", a.preemptions},
      {"swapped_out_blocks", st.swapped_out},
      {"steps", st.steps},
      {"busy_fraction", span > 0 ? st.busy / (span * r.steps.size()) : 0},
  };
  if (!a.transfer.empty()) out["kv_transfer_s"] = stats(a.transfer);
  out["energy"] = serving_energy(s, r, span, a.served, a.output);
  return {{"name", s.name},          {"kind", "serving"},      {"model", s.model.name},
          {"hardware", s.hardware.name}, {"gpus", s.cluster.total_gpus()}, {"serving", out},
          {"status", "ok"},              {"llmsim_version", LLMSIM_VERSION}, {"wall_time_s", wall_seconds}};
}

std::string serving_summary_table(const json& summary) {
  const auto& v = summary["serving"];
  auto ms = [](const json& x) {
    return format_number(1e3 * x["p50"].get<double>(), "%.1f") + " / " +
           format_number(1e3 * x["p90"].get<double>(), "%.1f") + " / " +
           format_number(1e3 * x["p99"].get<double>(), "%.1f ms");
  };
  std::string out = "llmsim " LLMSIM_VERSION " - " + summary["name"].get<std::string>() + " (serving)\n";
  out += table_row("model / hardware", summary["model"].get<std::string>() + " on " +
                                           std::to_string(summary["gpus"].get<long>()) + " x " +
                                           summary["hardware"].get<std::string>());
  out += table_row("replicas", std::to_string(v["replicas"].get<int>()) + " x tp " + std::to_string(v["tp"].get<int>()) +
                                   " pp " + std::to_string(v["pp"].get<int>()) +
                                   (v["prefill_replicas"].get<int>() > 0
                                        ? " (" + std::to_string(v["prefill_replicas"].get<int>()) + " prefill)"
                                        : "") +
                                   "; " + v["scheduler"].get<std::string>() + ", " + v["router"].get<std::string>());
  const auto& a = v["admission"];
  std::string cut;
  for (const auto& [key, what] : {std::pair<const char*, const char*>{"rejected", " rejected"},
                                  {"truncated_prompts", " truncated"},
                                  {"capped_outputs", " outputs capped"}})
    if (a[key].get<long>() > 0) cut += "; " + std::to_string(a[key].get<long>()) + what;
  out += table_row("requests", std::to_string(v["requests"].get<long>()) + " in " +
                                   format_number(v["makespan_s"].get<double>(), "%.1f s") + cut);
  out += table_row("TTFT p50 / p90 / p99", ms(v["ttft_s"]));
  out += table_row("TPOT p50 / p90 / p99", ms(v["tpot_s"]));
  out += table_row("end-to-end p50 / p90 / p99", ms(v["e2e_s"]));
  out += table_row("throughput", format_number(v["throughput"]["requests_per_s"].get<double>(), "%.2f req/s, ") +
                                     format_number(v["throughput"]["output_tokens_per_s"].get<double>(), "%.0f output tokens/s"));
  out += table_row("SLO attainment / goodput", format_number(100 * v["slo"]["attainment"].get<double>(), "%.1f%% / ") +
                                                   format_number(v["slo"]["goodput_requests_per_s"].get<double>(), "%.2f req/s"));
  out += table_row("KV use mean / peak", format_number(100 * v["kv_cache"]["mean_utilization"].get<double>(), "%.1f%% / ") +
                                             format_number(100 * v["kv_cache"]["peak_utilization"].get<double>(), "%.1f%%") +
                                             " of " + std::to_string(v["kv_cache"]["blocks_per_replica"].get<long>()) +
                                             " blocks");
  out += table_row("batch mean / preemptions", format_number(v["batch_size"]["mean"].get<double>(), "%.1f / ") +
                                                   std::to_string(v["preemptions"].get<int>()));
  if (!v["energy"].is_null())
    out += table_row("energy", format_number(v["energy"]["per_output_token_J"].get<double>(), "%.3g J per output token, ") +
                                   format_number(v["energy"]["mean_power_per_gpu_W"].get<double>(), "mean %.0f W per GPU"));
  if (summary.contains("capacity"))
    out += table_row("capacity (SLO attainment)",
                     format_number(summary["capacity"]["rate_scale"].get<double>(), "%.4g x the workload's rate = ") +
                         format_number(summary["capacity"]["requests_per_s"].get<double>(), "%.3g req/s (") +
                         format_number(100 * summary["capacity"]["attainment_target"].get<double>(), "%.0f%%)"));
  out += table_row("wall time", format_number(summary["wall_time_s"].get<double>(), "%.2f s"));
  return out;
}

void write_requests_csv(std::ostream& out, const serving::ServingResult& r) {
  out.precision(9);
  out << "id,arrival_s,first_token_s,finished_s,ttft_s,tpot_s,e2e_s,prompt_tokens,output_tokens,replica,"
         "prefill_replica,preemptions,kv_transfer_s,status,requested_prompt_tokens,requested_output_tokens\n";
  for (const auto& q : r.requests) {
    const bool served = serving::is_served(q.status);  // else no times and no replica: empty cells
    out << q.id << ',' << q.arrival << ',';
    if (served)
      out << q.first_token << ',' << q.finished << ',' << q.first_token - q.arrival << ',' << tpot(q) << ','
          << q.finished - q.arrival;
    else
      out << ",,,,";
    out << ',' << q.prompt_tokens << ',' << q.output_tokens << ',';
    if (served) out << q.replica << ',' << q.prefill_replica;
    else out << ',';
    out << ',' << q.preemptions << ',' << q.kv_transfer << ',' << serving::status_name(q.status) << ','
        << q.requested_prompt_tokens << ',' << q.requested_output_tokens << '\n';
  }
}

void write_kv_usage_csv(std::ostream& out, const serving::ServingResult& r, double sample) {
  out << "time_s,replica,kv_used_fraction,running,waiting\n";
  for (size_t rep = 0; rep < r.steps.size(); ++rep) {
    const auto& steps = r.steps[rep];
    size_t from = 0, last = 0;
    for (double t = 0; t < r.end; t += sample) {
      const double t1 = std::min(t + sample, r.end);
      const double use = kv_use(steps, t, t1, r.kv.blocks, from);
      while (last + 1 < steps.size() && steps[last + 1].start < t1) ++last;
      const bool any = !steps.empty() && steps[last].start < t1;
      out << t << ',' << rep << ',' << use << ',' << (any ? steps[last].running : 0) << ','
          << (any ? steps[last].waiting : 0) << '\n';
    }
  }
}

void write_serving_trace(std::ostream& out, const serving::ServingResult& r, const scenario::Serving& sv) {
  out << "{\"displayTimeUnit\":\"ms\",\"traceEvents\":[";
  const char* sep = "\n";
  char line[320];
  const double to = sv.trace_to > 0 ? sv.trace_to : std::numeric_limits<double>::infinity();
  for (size_t rep = 0; rep < r.steps.size(); ++rep) {
    const char* role = r.roles[rep] == serving::Role::Prefill ? " (prefill)"
                       : r.roles[rep] == serving::Role::Decode ? " (decode)" : "";
    out << sep << R"({"name":"thread_name","ph":"M","pid":0,"tid":)" << rep << R"(,"args":{"name":"replica )" << rep
        << role << "\"}}";
    sep = ",\n";
    int written = 0;
    for (const auto& st : r.steps[rep]) {
      if (written >= sv.trace_max_steps || st.start >= to) break;
      if (st.start < sv.trace_from) continue;
      const char* name = st.prefill_tokens > 0 ? (st.decode_seqs > 0 ? "mixed" : "prefill") : "decode";
      std::snprintf(line, sizeof line,
                    R"(%s{"name":"%s","ph":"X","pid":0,"tid":%zu,"ts":%.3f,"dur":%.3f,"args":{"prefill_tokens":%d,)"
                    R"("decode_seqs":%d,"kv_used_blocks":%ld,"waiting":%d,"preemptions":%d}})",
                    sep, name, rep, st.start * 1e6, (st.end - st.start) * 1e6, st.prefill_tokens, st.decode_seqs,
                    st.kv_used, st.waiting, st.preemptions);
      out << line;
      ++written;
    }
  }
  out << "\n]}\n";
}

}  // namespace llmsim::report
