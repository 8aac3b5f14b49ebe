#pragma once
// The size limits of llmsim in one place (docs/decisions.md, "Limits"). Inputs over them are refused with an error
// that names the field to change; later speed work may raise them.
namespace llmsim::limits {

/// Largest scenario, preset, sweep or baseline JSON file [bytes]: scenarios are hand-written, a few KiB.
constexpr double kMaxJsonFileBytes = 16.0 * 1024 * 1024;
/// Deepest nesting of objects and arrays in any JSON input: scenarios nest 5 levels; readers that walk a document
/// recursively would exhaust the stack at about 20,000.
constexpr int kMaxJsonDepth = 64;
/// Most points of one sweep: 10,000 (each is a simulation; SLURM's default MaxArraySize is 1,001).
constexpr double kMaxSweepPoints = 10000;
/// Largest data file a scenario names (failure trace, request trace, length CDF, co-activation file, SimGrid
/// platform) [bytes]: the shipped Azure traces are 0.3 and 0.7 MiB.
constexpr double kMaxDataFileBytes = 1024.0 * 1024 * 1024;

/// Largest simulation a run may start (run/work_estimate.hpp): ops of all workers, network flows, serving
/// requests, and the memory they need [bytes] (docs/decisions.md, "Limits", has the shipped runs' sizes).
constexpr double kMaxOps = 2e8;
constexpr double kMaxFlows = 2e8;
/// 2,000,000: twice the million-request benchmark (37 s on 2 cores), so an accepted serving run ends in minutes.
constexpr double kMaxRequests = 2e6;
/// Latest request arrival a serving run takes [s]: 1e7 s, 116 days. A rate of 1e-320 requests/s put arrivals at
/// infinity and aborted SimGrid; a trace timestamp of 1e308 s made kv_usage.csv's row count overflow after a run.
constexpr double kMaxArrival_s = 1e7;
constexpr double kMaxGpus = 131072;  ///< 2^17: eight times the largest cluster llmsim is checked on (16,384)
constexpr double kMaxSimulationBytes = 8.0 * 1024 * 1024 * 1024;
/// Fault timeline (run/fault_run.hpp, timeline_work): its events times the nodes each one visits. Measured: 11.3
/// million checkpoints on 4 nodes (checkpoint-restart, a 10-year horizon) took 255 s, 5.6 us per node-step, so
/// 10^7 node-steps is about a minute.
constexpr double kMaxTimelineNodeSteps = 1e7;

/// Memory per element of a simulation [bytes], for the estimate: twice what a least-squares fit of the peak RSS
/// above the 37 MiB of an empty run gives on shipped runs (GPT-1008B on 3,072 GPUs: 2.4e6 ops, 132 MiB;
/// Llama-3-405B on 16,384: 1.7e6 ops, 212 MiB; GPT-145.6B on 1,536: 52 MiB; fit 30 B per op and 7.6 KiB per
/// GPU), and for serving 200,000 Poisson requests in 243 MiB (1 KiB per request). Flows are transient: their
/// limit bounds the solver's work, not memory.
constexpr double kBytesPerOp = 64;
/// A collective's start or wait holds more (the collective's state): an 8-layer DeepSeek-V3 on 64 GB200 with 1 MB
/// and 4 MB gradient buckets took 712 and 181 MiB above the empty run for 4.3e6 and 1.1e6 ops, nearly all of them
/// the buckets' starts and waits (172-174 B each, 2026-12-06): the bound is that, rounded up.
constexpr double kBytesPerCollectiveOp = 192;
constexpr double kBytesPerGpu = 16384;
constexpr double kBytesPerRequest = 2048;

/// Most experts of a strategy whose work grows with expert pairs (co-activation routing, Mozart's placement): 4x
/// DeepSeek-V3's 256. A plan with 1024 took 6 s to validate, 2048 took 41 s and 4096 over a minute.
constexpr int kMaxPairwiseExperts = 1024;

/// Largest attention head dimension (model.head_dim, given or derived as hidden/heads): 2^16, 256x the widest
/// head of a published model (FlashAttention kernels take 256 at most).
constexpr long long kMaxHeadDim = 65536;

/// Most rows of a time-bucketed output CSV (the fault timeline's throughput.csv, serving's kv_usage.csv).
constexpr double kMaxCsvRows = 1e7;
/// Most events of trace.json or events.csv: about 150 bytes each, so 1.5 GB of trace, past what Perfetto and
/// chrome://tracing open.
constexpr double kMaxTraceEvents = 1e7;

/// Smallest rate, efficiency, bandwidth or multiplier an input may give (0.001 of its unit: 1 MB/s, 1 GFLOP/s,
/// 0.1%): far below any real device, far above what would make a kernel's or a transfer's time overflow or
/// SimGrid's solver (precision 1e-9) see a zero rate. A denormal passed "> 0" and aborted the run.
constexpr double kMinRate = 1e-3;
/// Shortest outage, repair or replacement of a failure [h]: 0.36 s. Shorter ones vanished from the timeline in
/// rounding (a 1e-20 h outage ends when it starts) while the log counted them.
constexpr double kMinOutage_h = 1e-4;

/// A run whose estimate is above this many ops (or requests) shows a progress line on a terminal.
constexpr double kProgressOps = 2e6;

}  // namespace llmsim::limits
