#pragma once
// Fault-tolerance family (`strategies.fault_tolerance`): what a training job does when nodes fail, as a policy
// the fault timeline (faults/timeline.hpp) asks at every failure and repair.
//   none                the job stops at the first failure (the time to failure is reported)
//   checkpoint-restart  synchronous checkpoints of weights and optimizer state every `interval_h` ("auto": the
//                       Young/Daly optimum sqrt(2 * write time * cluster MTBF); Young, CACM 1974; Daly, FGCS 2006),
//                       written and read at `storage_GBps`; a failure rolls back to the last checkpoint and stalls
//                       `restart_s` (detection, rescheduling, initialisation) plus the read; the job needs all its
//                       nodes, so it then waits until the failed node is repaired or a spare has taken its place
//                       (faults.spare_nodes, faults.replace_h)
//   bamboo              redundant computation (Thorpe et al., NSDI 2023, Sec. 4): every node also runs its ring
//                       successor's forward (eager FRC) in whatever time it is not computing, so a failure is taken
//                       over by the predecessor (a `failover_s` pause, 0 as in Bamboo's own simulator), which then
//                       also runs the successor's backward (lazy BRC)
//                       until the node is back; a node and its predecessor down together cannot be covered (the job
//                       waits for a repair)
//   oobleck             pipeline templates (Jang et al., SOSP 2023): a failure re-instantiates the job on the nodes
//                       left, from the other replicas' copies of the states (stall: a node's states over its NIC
//                       plus `reconfigure_s`, by default its artifact simulator's rendezvous for the model's size,
//                       3-10 s), with the global batch re-balanced; a repair grows it back the same way
//   mecefo              Neighbor-Do-Both (Hu et al., NeurIPS 2025, arXiv 2510.16415, Sec. 3): a neighbour in the same
//                       data-parallel group runs its own micro-batches and the failed node's, the latter with
//                       MeCeFO's cheap backward — attention skipped (gradient through the residual only), FFN
//                       activations recomputed, rank-`rank` FFN weight gradients with an SVD refresh every
//                       `refresh_steps` steps; extra compute and memory from the model's dimensions
//                       (docs/faults.md); no overhead while nothing has failed
// The iteration in flight on a failed node is lost (except under bamboo, whose copy finishes it).
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <vector>

#include "llmsim/strategy/registry.hpp"

namespace llmsim::strategy {

/// What the fault timeline knows about the job (run/fault_run.cpp measures or derives each value).
struct JobCosts {
  int nodes = 0;
  /// Nodes holding the same pipeline stage (consecutive blocks of this many nodes): a failed node's
  /// data-parallel neighbours.
  int group_nodes = 0;
  double iteration = 0;              ///< failure-free iteration of the plain job [s] (simulated)
  double tokens_per_iteration = 0;
  double checkpoint_bytes = 0;       ///< weights + optimizer state of the whole job [bytes]
  double node_state_bytes = 0;       ///< the share of them one node holds [bytes]
  double node_bandwidth = 0;         ///< NIC bandwidth of a node [bytes/s]
  double worker_forward = 0;         ///< forward compute of one worker (tp group) per iteration [s]
  double worker_backward = 0;        ///< backward compute (incl. recomputation) of one worker per iteration [s]
  double worker_memory = 0;          ///< peak memory of one GPU in the plain job [bytes]
  std::map<int, double> iteration_on_nodes;  ///< simulated failure-free iteration on n nodes (templates())
};

/// A module's own numbers for summary.json ("module"): name -> value; no value = not applicable (null there).
using ModuleNumbers = std::map<std::string, std::optional<double>>;

/// The policy's answer to a failure.
struct FailureReaction {
  bool stop = false;              ///< the job ends
  bool rollback = false;          ///< training since the last checkpoint is lost
  bool keeps_in_flight = false;   ///< the iteration in flight completes (a redundant copy)
  double stall = 0;               ///< [s] before training resumes
};

class FaultTolerance {
 public:
  virtual ~FaultTolerance() = default;
  /// Node counts whose failure-free iteration must be simulated (Oobleck's templates), given the counts of
  /// nodes up that the failures reach.
  virtual std::vector<int> templates(const std::set<int>& /*up_counts*/) const { return {}; }
  /// Iteration time [s] with the nodes `down` failed; a negative value: the job cannot run until a repair.
  virtual double iteration(const JobCosts& c, const std::set<int>& down) const = 0;
  virtual FailureReaction on_failure(const JobCosts& c, const std::set<int>& down) const = 0;
  /// [s] of stall when a node comes back (`down`: the nodes still failed).
  virtual double repair_stall(const JobCosts&, const std::set<int>&) const { return 0; }
  /// Training time between checkpoints [s] (0: none), given the cluster's mean time between failures [s].
  virtual double checkpoint_interval(const JobCosts&, double) const { return 0; }
  /// [s] a checkpoint stalls training.
  virtual double checkpoint_write(const JobCosts&) const { return 0; }
  /// Module-specific numbers for summary.json (e.g. MeCeFO's neighbour multipliers).
  virtual ModuleNumbers report(const JobCosts&) const { return {}; }
};

using FaultToleranceRegistry = Registry<FaultTolerance>;

std::unique_ptr<FaultTolerance> make_fault_tolerance(const scenario::Scenario& s);

}  // namespace llmsim::strategy
