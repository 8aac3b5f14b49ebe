#pragma once
// The seam between workloads and the engine (DESIGN: "The Program is the seam"): each worker runs an
// ordered list of ops. A worker stands for one tensor-parallel group: its tp GPUs execute the same ops at the
// same times (Megatron TP ranks are symmetric), so one actor drives all of them; its network transfers are
// given per GPU and carried by one aggregated flow (platform/cluster_platform.hpp, lane aggregation).
#include <array>
#include <cstdint>
#include <map>
#include <string>
#include <variant>
#include <vector>

#include "llmsim/collectives/collective.hpp"

namespace llmsim::workload {

/// Where time goes, per GPU (summary.json "time_breakdown_s").
/// Offload: waiting for data from off-chip memory (activations copied back from the host, weights from DRAM).
/// EpComm: waiting for MoE all-to-all exchanges; CpComm: waiting for context-parallel exchanges.
/// Host: the GPU waiting for the host to issue its kernels (ComputeCost::host, HostSyncOp).
enum class TimeCategory {
  Gemm, Attention, Elementwise, TpComm, PpComm, DpComm, EpComm, CpComm, Optimizer, Offload, Host, Idle, Count
};
constexpr int kTimeCategories = static_cast<int>(TimeCategory::Count);
const char* time_category_name(TimeCategory c);
using TimeBreakdown = std::array<double, kTimeCategories>;

/// A compute block: a fixed duration made of categories (kernels and blocking in-node tp collectives).
struct ComputeCost {
  std::string name;     ///< e.g. "F chunk" / "B chunk" / "optimizer"
  double duration = 0;  ///< [s]
  TimeBreakdown by_category{};  ///< sums to duration
  double flops = 0;     ///< executed FLOPs per GPU (hardware FLOPs)
  double dynamic_energy = 0;  ///< [J] above idle power (hardware/power_model.hpp)
  /// [s] the host spends issuing its kernels (launches x software.kernel_launch_us); the block cannot end
  /// before the host has issued it (engine: one host timeline per worker).
  double host = 0;
  /// The category holding most of the duration (what a trace event or a wait is filed under).
  TimeCategory main_category() const;
};

/// A collective over a group of workers, issued on the communication stream (asynchronous).
struct CollectiveSpec {
  std::string name;
  int group = 0;          ///< index into Workload::groups
  collectives::Kind kind = collectives::Kind::AllReduce;
  double bytes = 0;       ///< per GPU buffer size (nccl-tests "size") [bytes]
  TimeCategory category = TimeCategory::DpComm;
  collectives::Algorithm algorithm = collectives::Algorithm::Auto;
  std::vector<double> matrix;  ///< all-to-all-v: bytes per GPU from member i to member j, row-major
  /// Low priority (FlowMoE's gradient chunks): the group's stream starts it only while no member has an
  /// all-to-all (category EpComm) started and not finished; once started it runs to its end.
  bool yields_to_all_to_all = false;
  /// Ring kinds: point-to-point sends around the members in order (collectives::GroupLayout::point_to_point).
  bool point_to_point = false;
};

/// Streams of a worker beside its compute stream (0): tp collectives, and the two directions of the host link.
constexpr uint8_t kCommStream = 1, kDeviceToHostStream = 2, kHostToDeviceStream = 3;

/// Backward = the whole backward; BackwardInput (B) and BackwardWeight (W) its two halves (zero-bubble split).
enum class Pass : uint8_t { None, Forward, Backward, BackwardInput, BackwardWeight };

/// What a block of work or a pipeline message belongs to: a pass of a micro-batch on a global model chunk
/// (moe-chiplet: on a layer). The default, (None, -1, -1), is work outside the passes (the optimizer).
/// A message is matched by the step of its receiver (engine: one tag per (pass, micro_batch, chunk), the
/// passes of a backward count as one).
struct PassStep {
  Pass pass = Pass::None;
  int32_t micro_batch = -1;
  int32_t chunk = -1;
};

// The ops of a worker's program, each with only its own fields. Event ids are per worker (a workload uses the
// index of the op that completes the event); side-stream events (CommAsyncOp) and memory transfers are apart.

/// Runs ComputeCost `cost` on the compute stream.
struct ComputeOp {
  int32_t cost = 0;  ///< index into Workload::costs
  PassStep step;
};
/// Starts CollectiveSpec `collective` on its group's stream (asynchronous; it runs once every member started it).
struct CollectiveStartOp {
  int32_t collective = 0;  ///< index into Workload::collectives
};
/// Blocks until the collective is done: the k-th wait for `collective` on a worker waits for its k-th start. The
/// wait is exposed time of the collective's category, traced under `pass`.
struct CollectiveWaitOp {
  int32_t collective = 0;
  Pass pass = Pass::None;
};
/// Sends `bytes` per GPU to worker `peer`; blocks until they are delivered, unless `overlapped`
/// (Megatron-Core's overlap_p2p_comm): then the worker goes on, and waits for the delivery at its next
/// SendWaitOp of the message's direction or at the end of its iteration.
struct SendOp {
  int32_t peer = 0;
  PassStep message;
  double bytes = 0;  ///< per GPU [bytes]
  bool overlapped = false;
};
/// Blocks until this worker's overlapped sends in the direction of `pass` are delivered: activations (Forward)
/// or activation gradients (Backward, BackwardInput). Megatron-Core's interleaved schedule waits for the previous
/// step's send handles of a direction before it computes the next step of that direction.
struct SendWaitOp {
  Pass pass = Pass::None;
};
/// Blocks until the message `message` from worker `peer` has arrived (messages arriving earlier are kept).
struct RecvOp {
  int32_t peer = 0;
  PassStep message;
};
/// The host waits until the compute stream has run everything issued so far (cudaStreamSynchronize: a
/// dropless MoE dispatcher reading its token counts); from then on the host issues from the current time.
struct HostSyncOp {};
/// Marks the end of iteration `iteration` on this worker.
struct IterationEndOp {
  int32_t iteration = 0;
};
/// A transfer of ComputeCost `cost`'s (analytic) duration queued on side stream `stream` (an in-node collective
/// on the communication stream, or a host copy): it starts when that stream is free and event `after` (if
/// >= 0) has completed, runs beside the compute stream and completes event `event`; traced under (pass, chunk).
struct CommAsyncOp {
  int32_t cost = 0;
  int32_t event = 0;
  uint8_t stream = kCommStream;
  int32_t after = -1;
  Pass pass = Pass::None;
  int32_t chunk = -1;
};
/// Blocks the compute stream until event `event` (of a CommAsyncOp) has completed; the wait is exposed time of
/// the main category of ComputeCost `cost` (what it waits for).
struct WaitEventOp {
  int32_t event = 0;
  int32_t cost = 0;
};
enum class MemoryDirection : uint8_t { Read, Write };  ///< Read: into the worker; Write: out to the memory
/// Starts a transfer of `bytes` between the worker and off-chip memory endpoint `endpoint`
/// (ClusterPlatform::memories, e.g. a nop-tree group's DRAM) over the simulated network; completes event `event`.
struct MemoryStartOp {
  int32_t endpoint = 0;
  double bytes = 0;
  MemoryDirection direction = MemoryDirection::Read;
  int32_t event = 0;
};
/// Blocks until the memory transfer completing event `event` is done; the wait is filed under Offload.
struct MemoryWaitOp {
  int32_t event = 0;
};

using Op = std::variant<ComputeOp, CollectiveStartOp, CollectiveWaitOp, SendOp, SendWaitOp, RecvOp, IterationEndOp,
                        CommAsyncOp, WaitEventOp, MemoryStartOp, MemoryWaitOp, HostSyncOp>;

/// Builders, one per op, named for what it does (they read at the call site; the structs stay aggregates).
inline ComputeOp compute(int cost, PassStep step = {}) { return ComputeOp{cost, step}; }
inline CollectiveStartOp start_collective(int collective) { return CollectiveStartOp{collective}; }
inline CollectiveWaitOp wait_collective(int collective, Pass pass = Pass::None) {
  return CollectiveWaitOp{collective, pass};
}
inline SendOp send_to(int peer, PassStep message, double bytes, bool overlapped = false) {
  return SendOp{peer, message, bytes, overlapped};
}
inline SendWaitOp wait_sends(Pass pass) { return SendWaitOp{pass}; }
inline RecvOp recv_from(int peer, PassStep message) { return RecvOp{peer, message}; }
inline IterationEndOp end_iteration(int iteration) { return IterationEndOp{iteration}; }
/// On the communication stream, after nothing but the stream's earlier transfers (set `stream` and `after` for
/// another stream or an ordering).
inline CommAsyncOp comm_async(int cost, int event, Pass pass, int chunk) {
  CommAsyncOp op;
  op.cost = cost, op.event = event, op.pass = pass, op.chunk = chunk;
  return op;
}
inline WaitEventOp wait_event(int event, int cost) { return WaitEventOp{event, cost}; }
inline MemoryStartOp read_memory(int endpoint, double bytes, int event) {
  return MemoryStartOp{endpoint, bytes, MemoryDirection::Read, event};
}
inline MemoryStartOp write_memory(int endpoint, double bytes, int event) {
  return MemoryStartOp{endpoint, bytes, MemoryDirection::Write, event};
}
inline MemoryWaitOp wait_memory(int event) { return MemoryWaitOp{event}; }

struct Worker {
  int node = 0;         ///< node hosting the tp group
  int first_local = 0;  ///< first GPU of the group inside the node
  int width = 1;        ///< GPUs in the group (tp)
  int first_rank = 0;   ///< global rank of its first GPU
  int stage = 0;        ///< pipeline stage (for reports)
  std::vector<Op> ops;
};

struct Workload {
  std::vector<Worker> workers;
  std::vector<ComputeCost> costs;
  std::vector<CollectiveSpec> collectives;
  std::vector<std::vector<int>> groups;  ///< worker indices, ring order
  /// Groups of folded replicas (workload/replica_fold.hpp): group -> members it stands for; absent: its size.
  std::map<int, int> represents;
  int iterations = 1;
};

/// `members` (worker indices) reordered as NCCL's topology search rings a communicator whatever its rank order: each
/// node's workers together, nodes in ascending index, within a node by their first GPU (NCCL's ncclTopoCompute
/// builds the intra-node path and joins nodes, so a ring crosses each node boundary once). For groups whose member
/// order carries no meaning (gradient reduction over data-parallel replicas); an exchange whose peers follow the
/// rank order (a cp ring, an all-to-all's destinations) keeps its own order.
std::vector<int> in_topology_order(std::vector<int> members, const Workload& w);

}  // namespace llmsim::workload
