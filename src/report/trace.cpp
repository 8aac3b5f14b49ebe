#include "llmsim/report/trace.hpp"

#include <nlohmann/json.hpp>

namespace llmsim::report {

using nlohmann::json;

std::vector<bool> traced_workers(const workload::Workload& w, int max_gpus) {
  std::vector<bool> out;
  for (const auto& wk : w.workers) out.push_back(wk.first_rank < max_gpus);
  return out;
}

namespace {
/// An event whose `ref` is a CollectiveSpec (a data-parallel, expert-parallel or pipeline collective), not a cost.
bool is_collective(const TraceEvent& e) {
  using workload::TimeCategory;
  return e.category == TimeCategory::DpComm || e.category == TimeCategory::EpComm ||
         (e.category == TimeCategory::PpComm && e.micro_batch < 0);
}

std::string event_name(const workload::Workload& w, const TraceEvent& e) {
  using workload::Pass;
  using workload::TimeCategory;
  const std::string mb = e.micro_batch >= 0 ? " mb" + std::to_string(e.micro_batch) + " chunk" + std::to_string(e.chunk) : "";
  if (e.category == TimeCategory::PpComm && e.stream == 1) return (e.pass == Pass::Forward ? "send act" : "send grad") + mb;
  if (e.category == TimeCategory::PpComm && e.micro_batch >= 0) return (e.pass == Pass::Forward ? "recv act" : "recv grad") + mb;
  if (is_collective(e)) return w.collectives[e.ref].name + (e.stream == 0 ? " (wait)" : "");
  return w.costs[e.ref].name + mb;
}
}  // namespace

void write_trace(std::ostream& out, const workload::Workload& w, const Recorder& rec, int max_gpus) {
  out << "{\"displayTimeUnit\":\"ms\",\"traceEvents\":[\n";
  bool first = true;
  auto emit = [&](const json& j) {
    out << (first ? "" : ",\n") << j.dump();
    first = false;
  };
  for (size_t i = 0; i < w.workers.size(); ++i) {
    const auto& wk = w.workers[i];
    for (int lane = 0; lane < wk.width && wk.first_rank + lane < max_gpus; ++lane) {
      const int pid = wk.first_rank + lane;
      emit({{"ph", "M"}, {"name", "process_name"}, {"pid", pid},
            {"args", {{"name", "GPU " + std::to_string(pid) + " (stage " + std::to_string(wk.stage) + ")"}}}});
      emit({{"ph", "M"}, {"name", "process_sort_index"}, {"pid", pid}, {"args", {{"sort_index", pid}}}});
      emit({{"ph", "M"}, {"name", "thread_name"}, {"pid", pid}, {"tid", 0}, {"args", {{"name", "compute"}}}});
      emit({{"ph", "M"}, {"name", "thread_name"}, {"pid", pid}, {"tid", 1}, {"args", {{"name", "communication"}}}});
    }
  }
  for (const auto& e : rec.events()) {
    const auto& wk = w.workers[e.worker];
    json args = json::object();
    if (e.stream == 0 && e.category != workload::TimeCategory::PpComm && !is_collective(e)) {
      const auto& cost = w.costs[e.ref];
      for (int c = 0; c < workload::kTimeCategories; ++c)
        if (cost.by_category[c] > 0)
          args[std::string(workload::time_category_name(static_cast<workload::TimeCategory>(c))) + "_ms"] =
              cost.by_category[c] * 1e3;
    }
    for (int lane = 0; lane < wk.width && wk.first_rank + lane < max_gpus; ++lane)
      emit({{"ph", "X"}, {"name", event_name(w, e)}, {"cat", workload::time_category_name(e.category)},
            {"pid", wk.first_rank + lane}, {"tid", e.stream}, {"ts", e.start * 1e6}, {"dur", (e.end - e.start) * 1e6},
            {"args", args}});
  }
  out << "\n]}\n";
}

}  // namespace llmsim::report
