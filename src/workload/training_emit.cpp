#include "llmsim/workload/training.hpp"

#include <set>

namespace llmsim::workload {
namespace {

/// The ops of one worker: stage `sp`, data-parallel replica `replica`.
class WorkerEmitter {
 public:
  WorkerEmitter(const TrainingPlan& plan, const StagePlan& sp, int replica, Worker& wk)
      : plan_(plan), sp_(sp), replica_(replica), ep_rank_(replica % plan.layout.ep), ops_(wk.ops) {}

  void iteration(int it, const strategy::PipelineSchedule& schedule) {
    const TrainingLayout& l = plan_.layout;
    const GradientSyncOps& sync = sp_.sync;
    const PipelineWiring wiring{l.pp,
                                l.owner,
                                &plan_.passes[ep_rank_],
                                plan_.activations,
                                [&](int stage) { return l.worker_of(stage, replica_); },
                                plan_.offload_cost,
                                [&](int key) -> const std::vector<int>& {
                                  return plan_.exchange_specs(sp_.stage, replica_, key);
                                }};
    append_pipeline_ops(
        ops_, sp_.stage, sp_.order, schedule, wiring,
        [&](int c) {
          if (sync.overlap) start(sync.at_chunk_end[ep_rank_][c]);
        },
        [&](int layer) {
          const auto& of_layer = sync.at_layer_end[ep_rank_];
          if (const auto f = of_layer.find(layer); f != of_layer.end()) start(f->second);
        },
        [&](int layer, int next) { layer_params(layer, next); });
    if (!sync.overlap)
      for (const auto& steps : sync.at_chunk_end[ep_rank_]) start(steps);
    for (int spec : started_) ops_.push_back(wait_collective(spec));
    started_.clear();
    const int tied = plan_.tied_embedding[replica_];
    if (tied >= 0 && (sp_.stage == 0 || sp_.stage == l.pp - 1)) blocking({{-1, tied}});
    ops_.push_back(compute(sp_.optimizer_cost));
    blocking(sync.after_optimizer);
    ops_.push_back(end_iteration(it));
  }

 private:
  void begin(const SyncStep& step) {
    if (step.compute >= 0) ops_.push_back(compute(step.compute));
    ops_.push_back(start_collective(step.collective));
  }
  /// Started now, waited for before the optimizer.
  void start(const std::vector<SyncStep>& steps) {
    for (const auto& step : steps) {
      begin(step);
      started_.push_back(step.collective);
    }
  }
  /// ZeRO-3: wait for `layer`'s parameters (gathered now unless prefetched), then prefetch `next`'s.
  void layer_params(int layer, int next) {
    const auto& gathers = sp_.sync.layer_gather;
    if (const auto g = gathers.find(layer); g != gathers.end()) {
      if (!prefetched_.erase(layer)) ops_.push_back(start_collective(g->second));
      ops_.push_back(wait_collective(g->second));
    }
    if (const auto g = gathers.find(next); g != gathers.end() && prefetched_.insert(next).second)
      ops_.push_back(start_collective(g->second));
  }
  /// Started and waited for at once.
  void blocking(const std::vector<SyncStep>& steps) {
    for (const auto& step : steps) {
      begin(step);
      ops_.push_back(wait_collective(step.collective));
    }
  }

  const TrainingPlan& plan_;
  const StagePlan& sp_;
  const int replica_, ep_rank_;
  std::vector<Op>& ops_;
  std::vector<int> started_;
  std::set<int> prefetched_;  ///< layers whose parameter gather is started and not yet waited for
};

}  // namespace

void emit_training(TrainingPlan& plan, const strategy::PipelineSchedule& schedule) {
  const TrainingLayout& l = plan.layout;
  for (const StagePlan& sp : plan.stages)
    for (int r = 0; r < l.replicas; ++r) {
      if (!l.simulated(r)) continue;
      WorkerEmitter emitter(plan, sp, r, plan.workload.workers[l.worker_of(sp.stage, r)]);
      for (int it = 0; it < plan.workload.iterations; ++it) emitter.iteration(it, schedule);
    }
}

}  // namespace llmsim::workload
