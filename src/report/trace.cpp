#include "llmsim/report/trace.hpp"

#include <algorithm>
#include <cstdio>
#include <functional>
#include <map>
#include <nlohmann/json.hpp>
#include <tuple>

namespace llmsim::report {

using nlohmann::json;
using workload::TimeCategory;

TraceSelection trace_selection(const scenario::Output& o) {
  TraceSelection sel;
  sel.ranks = o.trace_ranks;
  sel.first_iteration = o.trace_first_iteration;
  if (o.trace_last_iteration >= 0) sel.last_iteration = o.trace_last_iteration;
  return sel;
}

std::vector<bool> traced_workers(const workload::Workload& w, const TraceSelection& sel) {
  std::vector<bool> out;
  for (const auto& wk : w.workers) {
    bool any = false;
    for (int lane = 0; lane < wk.width; ++lane) any = any || sel.has_rank(wk.first_rank + lane);
    out.push_back(any);
  }
  return out;
}

double trace_events(const workload::Workload& w, const TraceSelection& sel) {
  const double iterations = std::max(1, w.iterations);
  const double selected = std::max(0.0, std::min<double>(sel.last_iteration, iterations - 1) - sel.first_iteration + 1);
  double events = 0;
  for (const auto& wk : w.workers) {
    int lanes = 0;
    for (int lane = 0; lane < wk.width; ++lane) lanes += sel.has_rank(wk.first_rank + lane) ? 1 : 0;
    events += static_cast<double>(wk.ops.size()) * lanes;
  }
  return events * selected / iterations;
}

namespace {
/// An event whose `ref` is a CollectiveSpec (a data-parallel, expert-parallel or pipeline collective), not a cost.
bool is_collective(const TraceEvent& e) {
  return e.category == TimeCategory::DpComm || e.category == TimeCategory::EpComm || e.category == TimeCategory::CpComm ||
         (e.category == TimeCategory::PpComm && e.micro_batch < 0);
}

/// A pipeline send (communication stream) or the receiver's wait for one (compute stream); `ref` is the peer.
bool is_p2p(const TraceEvent& e) { return e.category == TimeCategory::PpComm && e.micro_batch >= 0; }
bool is_send(const TraceEvent& e) { return is_p2p(e) && e.stream == workload::kCommStream; }

std::string event_name(const workload::Workload& w, const TraceEvent& e) {
  using workload::Pass;
  const std::string mb = e.micro_batch >= 0 ? " mb" + std::to_string(e.micro_batch) + " chunk" + std::to_string(e.chunk) : "";
  if (is_collective(e)) return w.collectives[e.ref].name + (e.stream == 0 ? " (wait)" : "");
  if (is_send(e)) return (e.pass == Pass::Forward ? "send act" : "send grad") + mb;
  if (is_p2p(e)) return (e.pass == Pass::Forward ? "recv act" : "recv grad") + mb;
  return w.costs[e.ref].name + mb;
}

/// Calls f(event, rank, lane) for every recorded event in the iteration window and every selected GPU of its
/// worker, in recording order.
template <class F>
void for_each_selected(const workload::Workload& w, const Recorder& rec, const TraceSelection& sel, F f) {
  for (const auto& e : rec.events()) {
    if (!sel.has_iteration(e.iteration)) continue;
    const auto& wk = w.workers[e.worker];
    for (int lane = 0; lane < wk.width; ++lane)
      if (sel.has_rank(wk.first_rank + lane)) f(e, wk.first_rank + lane, lane);
  }
}

/// (sender worker, receiver worker, gradient, micro-batch, chunk): one pipeline message of an iteration. As the
/// engine matches them, activations (forward) and gradients (any backward pass: a B-only send and a whole
/// backward's receive are one message) are the two kinds.
using MessageKey = std::tuple<int, int, int, int, int>;
MessageKey message_key(int sender, int receiver, workload::Pass pass, int micro_batch, int chunk) {
  return {sender, receiver, pass == workload::Pass::Forward ? 0 : 1, micro_batch, chunk};
}
MessageKey message_key(int sender, int receiver, const TraceEvent& e) {
  return message_key(sender, receiver, e.pass, e.micro_batch, e.chunk);
}

/// Per GPU bytes of every pipeline message, from the workers' Send ops.
std::map<MessageKey, double> message_bytes(const workload::Workload& w) {
  std::map<MessageKey, double> bytes;
  for (size_t i = 0; i < w.workers.size(); ++i)
    for (const auto& op : w.workers[i].ops)
      if (const auto* send = std::get_if<workload::SendOp>(&op)) {
        const auto& m = send->message;
        bytes[message_key(static_cast<int>(i), send->peer, m.pass, m.micro_batch, m.chunk)] = send->bytes;
      }
  return bytes;
}

/// Flow arrows of the pipeline sends: "s" on the sender's communication track, "f" on the receiver's compute
/// track at the start of its wait for that message (a recv event starting while the send is in flight) or,
/// if it did not wait, at the arrival — moved to the start of the receiver's next compute-stream event if
/// none is running then, so that the arrow has a slice to bind to.
void emit_flows(const workload::Workload& w, const Recorder& rec, const TraceSelection& sel,
                const std::function<void(const json&)>& emit) {
  std::map<MessageKey, std::vector<const TraceEvent*>> waits;
  std::vector<std::vector<std::pair<double, double>>> compute(w.workers.size());  // per worker: (start, end)
  for (const auto& e : rec.events()) {
    if (is_p2p(e) && !is_send(e)) waits[message_key(e.ref, e.worker, e)].push_back(&e);
    if (e.stream == 0) compute[e.worker].emplace_back(e.start, e.end);
  }
  for (auto& slices : compute) std::sort(slices.begin(), slices.end());
  const auto bound = [&](int worker, double t) {
    const auto& slices = compute[worker];
    auto next = std::upper_bound(slices.begin(), slices.end(), std::make_pair(t, t));
    if (next != slices.begin() && std::prev(next)->second >= t) return t;
    return next == slices.end() ? t : next->first;
  };
  long long id = 0;
  for_each_selected(w, rec, sel, [&](const TraceEvent& e, int rank, int lane) {
    if (!is_send(e)) return;  // (e.ref is a worker only for pipeline messages)
    const int receiver = w.workers[e.ref].first_rank + lane;
    if (!sel.has_rank(receiver)) return;
    double arrival = e.end;
    const auto it = waits.find(message_key(e.worker, e.ref, e));
    if (it != waits.end()) {
      const auto r = std::find_if(it->second.begin(), it->second.end(),
                                  [&](const TraceEvent* x) { return x->start >= e.start && x->start <= e.end; });
      if (r != it->second.end()) arrival = (*r)->start;
    }
    arrival = bound(e.ref, arrival);
    const std::string name = event_name(w, e), cat = workload::time_category_name(e.category);
    emit({{"ph", "s"}, {"id", id}, {"name", name}, {"cat", cat}, {"pid", rank}, {"tid", e.stream}, {"ts", e.start * 1e6}});
    emit({{"ph", "f"}, {"bp", "e"}, {"id", id}, {"name", name}, {"cat", cat}, {"pid", receiver}, {"tid", 0},
          {"ts", arrival * 1e6}});
    ++id;
  });
}

std::string csv_field(const std::string& s) {
  if (s.find_first_of(",\"\n") == std::string::npos) return s;
  std::string q = "\"";
  for (char c : s) q += c == '"' ? std::string("\"\"") : std::string(1, c);
  return q + "\"";
}

std::string number(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.15g", v);
  return buf;
}
}  // namespace

void write_trace(std::ostream& out, const workload::Workload& w, const Recorder& rec, const TraceSelection& sel) {
  out << "{\"displayTimeUnit\":\"ms\",\"traceEvents\":[\n";
  bool first = true;
  const std::function<void(const json&)> emit = [&](const json& j) {
    out << (first ? "" : ",\n") << j.dump();
    first = false;
  };
  for (const auto& wk : w.workers) {
    for (int pid = wk.first_rank; pid < wk.first_rank + wk.width; ++pid) {
      if (!sel.has_rank(pid)) continue;
      emit({{"ph", "M"}, {"name", "process_name"}, {"pid", pid},
            {"args", {{"name", "GPU " + std::to_string(pid) + " (stage " + std::to_string(wk.stage) + ")"}}}});
      emit({{"ph", "M"}, {"name", "process_sort_index"}, {"pid", pid}, {"args", {{"sort_index", pid}}}});
      emit({{"ph", "M"}, {"name", "thread_name"}, {"pid", pid}, {"tid", 0}, {"args", {{"name", "compute"}}}});
      emit({{"ph", "M"}, {"name", "thread_name"}, {"pid", pid}, {"tid", 1}, {"args", {{"name", "communication"}}}});
    }
  }
  for_each_selected(w, rec, sel, [&](const TraceEvent& e, int rank, int) {
    json args = json::object();
    if (e.stream == 0 && e.category != TimeCategory::PpComm && !is_collective(e)) {
      const auto& cost = w.costs[e.ref];
      for (int c = 0; c < workload::kTimeCategories; ++c)
        if (cost.by_category[c] > 0)
          args[std::string(workload::time_category_name(static_cast<TimeCategory>(c))) + "_ms"] = cost.by_category[c] * 1e3;
    }
    emit({{"ph", "X"}, {"name", event_name(w, e)}, {"cat", workload::time_category_name(e.category)}, {"pid", rank},
          {"tid", e.stream}, {"ts", e.start * 1e6}, {"dur", (e.end - e.start) * 1e6}, {"args", args}});
  });
  emit_flows(w, rec, sel, emit);
  out << "\n]}\n";
}

void write_events_csv(std::ostream& out, const workload::Workload& w, const Recorder& rec, const TraceSelection& sel) {
  const auto bytes = message_bytes(w);
  out << "rank,stream,iteration,name,category,start_s,end_s,peer,bytes\n";
  for_each_selected(w, rec, sel, [&](const TraceEvent& e, int rank, int lane) {
    std::string peer, size;
    if (is_p2p(e)) {
      peer = std::to_string(w.workers[e.ref].first_rank + lane);
      const auto key = is_send(e) ? message_key(e.worker, e.ref, e) : message_key(e.ref, e.worker, e);
      size = number(bytes.at(key));
    } else if (is_collective(e)) {
      size = number(w.collectives[e.ref].bytes);
    }
    out << rank << ',' << int(e.stream) << ',' << e.iteration << ',' << csv_field(event_name(w, e)) << ','
        << workload::time_category_name(e.category) << ',' << number(e.start) << ',' << number(e.end) << ',' << peer
        << ',' << size << '\n';
  });
}

}  // namespace llmsim::report
