#include "llmsim/workload/pipeline_ops.hpp"

namespace llmsim::workload {

std::vector<int> chunk_owners(const strategy::PipelineSchedule& schedule, int pp) {
  const int v = schedule.chunks_per_stage();
  std::vector<int> owner(pp * v);
  for (int stage = 0; stage < pp; ++stage)
    for (int c = 0; c < v; ++c) owner[schedule.model_chunk(pp, stage, c)] = stage;
  return owner;
}

void append_pipeline_ops(std::vector<Op>& ops, int stage, const std::vector<strategy::PipelineTask>& order,
                         const strategy::PipelineSchedule& schedule, const PipelineWiring& wiring,
                         const std::function<void(int local_chunk)>& on_chunk_done,
                         const std::function<void(int local_chunk)>& before_compute) {
  using TaskPass = strategy::PipelineTask::Pass;
  const int chunks = static_cast<int>(wiring.owner.size());
  // A chunk's gradients are final after its last whole backward or weight-gradient task.
  std::vector<size_t> last_gradient(schedule.chunks_per_stage(), order.size());
  for (size_t i = 0; i < order.size(); ++i)
    if (order[i].pass == TaskPass::Backward || order[i].pass == TaskPass::BackwardWeight) last_gradient[order[i].chunk] = i;
  auto remote = [&](int j) { return j >= 0 && j < chunks && wiring.owner[j] != stage; };
  for (size_t i = 0; i < order.size(); ++i) {
    const auto& task = order[i];
    const int j = schedule.model_chunk(wiring.pp, stage, task.chunk);
    Pass pass = Pass::Forward;
    int cost = wiring.forward_cost[j], from = j - 1, to = j + 1;  // from: chunk whose output this task consumes
    switch (task.pass) {
      case TaskPass::Forward: break;
      case TaskPass::Backward: pass = Pass::Backward, cost = wiring.backward_cost[j], from = j + 1, to = j - 1; break;
      case TaskPass::BackwardInput: pass = Pass::BackwardInput, cost = wiring.input_cost[j], from = j + 1, to = j - 1; break;
      case TaskPass::BackwardWeight: pass = Pass::BackwardWeight, cost = wiring.weight_cost[j], from = to = -1; break;
    }
    if (remote(from)) ops.push_back({Op::Kind::Recv, pass, task.micro_batch, j, wiring.worker(wiring.owner[from]), 0});
    if (before_compute) before_compute(task.chunk);
    ops.push_back({Op::Kind::Compute, pass, task.micro_batch, j, cost, 0});
    if (remote(to))
      ops.push_back({Op::Kind::Send, pass, task.micro_batch, to, wiring.worker(wiring.owner[to]), wiring.p2p_bytes});
    if (i == last_gradient[task.chunk] && on_chunk_done) on_chunk_done(task.chunk);
  }
}

}  // namespace llmsim::workload
