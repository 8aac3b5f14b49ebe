#pragma once
// trace.json in the Chrome trace-event format (opens in Perfetto and chrome://tracing): one process per GPU
// (pid = global rank), two threads per process (tid 0 = compute stream, tid 1 = communication stream),
// complete events ("ph": "X") with ts/dur in microseconds. A worker's events are replicated on each GPU of its
// tp group (they are identical by construction). Only GPUs with rank < trace_max_gpus get tracks.
#include <ostream>

#include "llmsim/report/recorder.hpp"
#include "llmsim/workload/program.hpp"

namespace llmsim::report {

/// Which workers have at least one GPU below `max_gpus` (for Recorder's `traced`).
std::vector<bool> traced_workers(const workload::Workload& w, int max_gpus);

void write_trace(std::ostream& out, const workload::Workload& w, const Recorder& rec, int max_gpus);

}  // namespace llmsim::report
