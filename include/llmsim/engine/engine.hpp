#pragma once
// Executes a Workload on the SimGrid platform of a cluster: one actor per worker (tp group) runs its ops;
// compute blocks are sleeps of their modelled duration; sends, receives and collectives are SimGrid flows that
// share links (max-min fairness of the chosen network model).
//   SendOp    one flow of width x per-GPU bytes between the groups' hosts (lane aggregation, see
//             platform/cluster_platform.hpp), blocking until delivered (an overlapped one: until the worker's
//             next SendWaitOp of its direction or its iteration's end, the wait being pipeline communication);
//             the peer's mailbox is eager (permanent receiver) so a send never waits for the receive call.
//   RecvOp    waits for the tagged message; time before the sender posted it is idle (bubble), time after is
//             pipeline communication.
//   CollectiveStartOp
//             when the last member arrives, a driver actor runs the ring channels (collectives::ring_channels,
//             NCCL's one ring per NIC): each edge of each channel is one flow of its share of
//             width x ring_edge_bytes (aggregated over the ring's steps), then (steps-1) times the
//             largest edge latency; collectives of one group run one after another (one NCCL stream), driven by one
//             actor per group while its queue is not empty.
//   CollectiveWaitOp
//             blocks until that collective is done (exposed data-parallel communication).
// The other ops (workload/program.hpp) are analytic: side-stream transfers and waits for their events, and
// memory transfers (flows to an off-chip memory endpoint).
// SimGrid's engine is a process-wide singleton: run_workload may be called once per process.
#include "llmsim/platform/cluster_platform.hpp"
#include "llmsim/report/recorder.hpp"
#include "llmsim/scenario/scenario.hpp"
#include "llmsim/workload/program.hpp"

namespace llmsim::engine {

/// Builds the cluster platform, runs every worker's program and returns what was recorded.
/// `traced[w]` selects the workers whose events are kept. Throws SimulationError on a deadlock.
report::Recorder run_workload(const workload::Workload& w, const scenario::Scenario& s, std::vector<bool> traced);

}  // namespace llmsim::engine
