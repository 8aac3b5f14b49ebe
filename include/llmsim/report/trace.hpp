#pragma once
// The traced events of a training run in two formats.
//
// trace.json, Chrome trace-event format (opens in Perfetto and chrome://tracing): one process per GPU
// (pid = global rank), threads per process (tid 0 = compute stream, tid 1 = communication stream, 2/3 = host
// copy streams), complete events ("ph": "X") with ts/dur in microseconds. A worker's events are replicated on
// each GPU of its tp group (they are identical by construction). Each pipeline send has a flow arrow: "ph": "s"
// at the send on the sender's communication track and "ph": "f", "bp": "e" (bound to the enclosing slice) on
// the receiver's compute track, with the same "id" and "cat" ("pp_comm") — at the start of the receiver's
// wait for it, or at the arrival if the receiver did not wait. Arrows are drawn when both GPUs are traced.
//
// events.csv: one row per complete event of trace.json (same selection, same order):
//   rank, stream, iteration, name, category, start_s, end_s, peer, bytes
// peer = the other GPU of a pipeline send/recv; bytes = per GPU, of a pipeline message or a collective's buffer
// (nccl-tests "size"); both empty for compute and analytic side-stream transfers.
//
// Selection (scenario output section): GPUs output.trace_ranks ("auto": the first output.trace_max_gpus) and
// iterations output.trace_iterations ([first, last], 0-based; an event belongs to the iteration its worker was
// in when it was recorded). Untraced workers record nothing; the iteration window filters at writing.
#include <algorithm>
#include <climits>
#include <ostream>
#include <vector>

#include "llmsim/report/recorder.hpp"
#include "llmsim/scenario/scenario.hpp"
#include "llmsim/workload/program.hpp"

namespace llmsim::report {

/// Which GPUs and iterations get events. Default-constructed: none.
struct TraceSelection {
  std::vector<int> ranks;  ///< ascending
  int first_iteration = 0, last_iteration = INT_MAX;  ///< inclusive

  bool has_rank(int rank) const { return std::binary_search(ranks.begin(), ranks.end(), rank); }
  bool has_iteration(int iteration) const { return iteration >= first_iteration && iteration <= last_iteration; }
};

/// The selection the scenario's output section asks for.
TraceSelection trace_selection(const scenario::Output& o);

/// Which workers have at least one selected GPU (for Recorder's `traced`).
std::vector<bool> traced_workers(const workload::Workload& w, const TraceSelection& sel);

/// About how many events trace.json (or events.csv) holds for `sel`: every op of a selected GPU's worker in a
/// selected iteration (a worker's ops cover all `w.iterations`; communication adds about a quarter more, which
/// this leaves out: the default scenario's 6,720 selected ops gave 8,336 events).
double trace_events(const workload::Workload& w, const TraceSelection& sel);

void write_trace(std::ostream& out, const workload::Workload& w, const Recorder& rec, const TraceSelection& sel);

void write_events_csv(std::ostream& out, const workload::Workload& w, const Recorder& rec, const TraceSelection& sel);

}  // namespace llmsim::report
