#pragma once
// Failure processes (`faults.process`, one registry family): when nodes fail and for how long. A process draws,
// for a cluster of `nodes` nodes and a horizon, the list of failures (time, node, repair duration); the fault
// timeline (faults/timeline.hpp) turns them into SimGrid host state profiles.
//   none            no failures (default)
//   exponential     failures of the cluster arrive as a Poisson process, mean time between failures `mtbf_h`
//                   (the cluster's, as papers quote it), each on a node chosen uniformly among the nodes that are
//                   up (an arrival finding every node down is dropped), repaired after `repair_h` hours; `target`
//                   "node" fails the node (its host), "nic" its network link (the node is cut off)
//   weibull         the same with Weibull times between failures: shape `shape` (< 1: infant mortality, bursts),
//                   scale mtbf_h / Gamma(1 + 1/shape) so the mean stays `mtbf_h`
//   mecefo-low/-mid/-high  exponential with the MeCeFO paper's rates (Hu et al., NeurIPS 2025, arXiv 2510.16415,
//                   Sec. 5): a failure every 2 h / 1 h / 0.5 h, recovery after 4 h / 3 h / 2 h
//   llama3          GPU failures at Llama 3 405B's rate (Dubey et al., "The Llama 3 Herd of Models", arXiv
//                   2407.21783, Sec. 3.3.4: 419 unexpected interruptions in 54 days on 16,384 GPUs, i.e. one per
//                   16,384 * 54 * 24 / 419 = 50,680 GPU-hours), a failed GPU taking its node out for `repair_h`
//   trace           an explicit CSV file `file`: a header line, then time_h,node,duration_h[,node|nic] per failure
// Draws use their own generator seeded from the scenario's seed: the same failures for every module.
#include <memory>
#include <random>
#include <vector>

#include "llmsim/strategy/registry.hpp"

namespace llmsim::faults {

struct Failure {
  double time = 0;      ///< [s] from the start of training
  int node = 0;         ///< 0 .. nodes-1
  double duration = 0;  ///< [s] until the node is back
  bool nic = false;     ///< the node's network link failed (the node is cut off), not the node itself
};

class FailureProcess {
 public:
  virtual ~FailureProcess() = default;
  /// Failures starting before `horizon` [s] on `nodes` nodes of `gpus_per_node` GPUs, sorted by time; a node
  /// is never failed twice at once.
  virtual std::vector<Failure> draw(int nodes, int gpus_per_node, double horizon, std::mt19937_64& rng) const = 0;
  /// Mean time between failures of the whole cluster [s] over a run of `horizon` [s] (Young/Daly checkpoint
  /// interval); infinity if none.
  virtual double cluster_mtbf(int nodes, int gpus_per_node, double horizon) const = 0;
};

using FailureProcessRegistry = strategy::Registry<FailureProcess>;

std::unique_ptr<FailureProcess> make_failure_process(const scenario::Scenario& s);

/// The failures of scenario `s` over faults.horizon_h (drawn with s.seed, then with_spares) and the cluster's
/// mean time between failures [s]; checks that the nodes exist.
struct FailureDraw {
  std::vector<Failure> failures;
  double cluster_mtbf = 0;
};
FailureDraw failures_of(const scenario::Scenario& s);

/// Spare nodes: a failed node's place is taken by a free spare after `replace` [s] when that is sooner than its
/// repair; the repaired node then joins the spares. Durations of `failures` (sorted by time) are shortened to
/// `replace` for the failures that find a spare free. Failures are of job positions (whatever node holds one).
std::vector<Failure> with_spares(std::vector<Failure> failures, int spares, double replace);

}  // namespace llmsim::faults
