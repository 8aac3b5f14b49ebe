#pragma once
// The seam between workloads and the engine (DESIGN: "The Program is the seam"): each worker runs an
// ordered list of ops. A worker stands for one tensor-parallel group: its tp GPUs execute the same ops at the
// same times (Megatron TP ranks are symmetric), so one actor drives all of them; its network transfers are
// given per GPU and carried by one aggregated flow (platform/cluster_platform.hpp, lane aggregation).
#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "llmsim/collectives/collective.hpp"

namespace llmsim::workload {

/// Where time goes, per GPU (summary.json "time_breakdown_s").
/// Offload: waiting for data from off-chip memory (activations copied back from the host, weights from DRAM).
/// EpComm: waiting for MoE all-to-all exchanges.
enum class TimeCategory { Gemm, Attention, Elementwise, TpComm, PpComm, DpComm, EpComm, Optimizer, Offload, Idle, Count };
constexpr int kTimeCategories = static_cast<int>(TimeCategory::Count);
const char* time_category_name(TimeCategory c);
using TimeBreakdown = std::array<double, kTimeCategories>;

/// A compute block: a fixed duration made of categories (kernels and blocking in-node tp collectives).
struct ComputeCost {
  std::string name;     ///< e.g. "F chunk" / "B chunk" / "optimizer"
  double duration = 0;  ///< [s]
  TimeBreakdown by_category{};  ///< sums to duration
  double flops = 0;     ///< executed FLOPs per GPU (hardware FLOPs)
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
};

/// Streams of a worker beside its compute stream (0): tp collectives, and the two directions of the host link.
constexpr uint8_t kCommStream = 1, kDeviceToHostStream = 2, kHostToDeviceStream = 3;

/// Backward = the whole backward; BackwardInput (B) and BackwardWeight (W) its two halves (zero-bubble split).
enum class Pass : uint8_t { None, Forward, Backward, BackwardInput, BackwardWeight };

struct Op {
  enum class Kind : uint8_t {
    Compute,      ///< ref = ComputeCost index
    Send,         ///< ref = peer worker; bytes per GPU; blocking until delivered
    Recv,         ///< ref = peer worker; waits for the (pass, micro_batch, chunk) message
    CollStart,    ///< ref = CollectiveSpec index; starts asynchronously
    CollWait,     ///< ref = CollectiveSpec index; blocks until it is done
    IterationEnd, ///< marks the end of an iteration on this worker
    /// ref = ComputeCost index: a transfer of that (analytic) duration queued on the worker's stream `stream`
    /// (an in-node collective on the communication stream, or a host copy) — it starts when that stream is
    /// free and event `after` (if >= 0) has completed, runs beside the compute stream, and completes event
    /// `micro_batch` (the field is reused as the event id).
    CommAsync,
    /// Blocks the compute stream until event `micro_batch` has completed; the wait is exposed time of the
    /// main category of cost `ref` (what it waits for).
    WaitEvent,
    /// Starts a transfer of `bytes` between the worker and off-chip memory endpoint `chunk` (the field is reused;
    /// ClusterPlatform::memories, e.g. a nop-tree group's DRAM) over the simulated network: ref 0 reads into
    /// the worker, ref 1 writes out; it completes event `micro_batch`.
    MemoryStart,
    /// Blocks until memory transfer `micro_batch` has completed; the wait is filed under Offload.
    MemoryWait
  };
  Kind kind;
  Pass pass = Pass::None;
  int32_t micro_batch = -1;
  int32_t chunk = -1;        ///< global model chunk
  int32_t ref = 0;
  double bytes = 0;
  uint8_t stream = kCommStream;  ///< CommAsync: the stream it queues on
  int32_t after = -1;            ///< CommAsync: event that must complete before it starts
};

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
  int iterations = 1;
};

}  // namespace llmsim::workload
