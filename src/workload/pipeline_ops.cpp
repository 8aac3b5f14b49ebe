#include "llmsim/workload/pipeline_ops.hpp"

#include <array>
#include <map>

namespace llmsim::workload {

std::vector<int> chunk_owners(const strategy::PipelineSchedule& schedule, int pp) {
  const int v = schedule.chunks_per_stage();
  std::vector<int> owner(pp * v);
  for (int stage = 0; stage < pp; ++stage)
    for (int c = 0; c < v; ++c) owner[schedule.model_chunk(pp, stage, c)] = stage;
  return owner;
}

namespace {

/// The params_of_layer of the first element of `chain` from `from` on that has one (-1: none).
template <class T>
int next_layer(const std::vector<T>& chain, size_t from, int T::*layer) {
  for (size_t i = from; i < chain.size(); ++i)
    if (chain[i].*layer >= 0) return chain[i].*layer;
  return -1;
}

/// One task resolved against the model: its pass, global chunk, the chunks it receives from and sends to
/// (-1: none) and its segment chain.
struct Resolved {
  Pass pass = Pass::Forward;
  int micro_batch = 0, chunk = 0, from = -1, to = -1;
  const PassChain* chain = nullptr;
  PassStep step() const { return {pass, micro_batch, chunk}; }
};

Resolved resolve(const strategy::PipelineTask& task, int stage, const strategy::PipelineSchedule& schedule,
                 const PipelineWiring& wiring) {
  using TaskPass = strategy::PipelineTask::Pass;
  Resolved r;
  r.micro_batch = task.micro_batch;
  r.chunk = schedule.model_chunk(wiring.pp, stage, task.chunk);
  const ChunkPasses& passes = (*wiring.passes)[r.chunk];
  r.from = r.chunk - 1, r.to = r.chunk + 1, r.chain = &passes.forward;
  switch (task.pass) {
    case TaskPass::Forward: break;
    case TaskPass::Backward: r.pass = Pass::Backward, r.chain = &passes.backward, r.from = r.chunk + 1, r.to = r.chunk - 1; break;
    case TaskPass::BackwardInput: r.pass = Pass::BackwardInput, r.chain = &passes.input, r.from = r.chunk + 1, r.to = r.chunk - 1; break;
    case TaskPass::BackwardWeight: r.pass = Pass::BackwardWeight, r.chain = &passes.weight, r.from = r.to = -1; break;
  }
  return r;
}

/// Alternates the segments of two passes, handing over to the other pass after each segment that communicates (a
/// tp collective or an exchange): a pass runs its segments up to its next communication, which then runs beside
/// the other pass's segments up to theirs (Megatron's combined 1F1B: the forward's attention and router beside the
/// backward's combine, the backward's experts beside the forward's dispatch, ...). A pass waits for its own last
/// collective or exchange before its next segment.
void append_braided(std::vector<Op>& ops, const std::array<Resolved, 2>& pair, const PipelineWiring& wiring,
                    const LayerParams& layer_params) {
  std::array<size_t, 2> next{0, 0};
  std::array<std::vector<Op>, 2> pending;  // the waits each pass owes before its next segment
  auto remaining = [&](int x) { return next[x] < pair[x].chain->segments.size(); };
  auto wait = [&](int x) {
    ops.insert(ops.end(), pending[x].begin(), pending[x].end());
    pending[x].clear();
  };
  for (int turn = 0; remaining(0) || remaining(1);) {
    const int x = remaining(turn) ? turn : 1 - turn;
    const Resolved& r = pair[x];
    const auto& segs = r.chain->segments;
    const Segment& seg = segs[next[x]++];
    wait(x);
    if (seg.params_of_layer >= 0 && layer_params)
      layer_params(seg.params_of_layer, next_layer(segs, next[x], &Segment::params_of_layer));
    ops.push_back(compute(seg.compute, r.step()));
    if (seg.collective >= 0) {
      const int event = static_cast<int>(ops.size());  // unique event id on this worker
      ops.push_back(comm_async(seg.collective, event, r.pass, r.chunk));
      pending[x].push_back(wait_event(event, seg.collective));
    }
    if (seg.exchange >= 0) {  // the exchange carries the collective's result: wait for it first
      wait(x);
      if (seg.host_sync) ops.push_back(HostSyncOp{});
      const auto& specs = wiring.exchange_specs(seg.exchange);
      for (int spec : specs) ops.push_back(start_collective(spec));
      for (int spec : specs) pending[x].push_back(wait_collective(spec, r.pass));
    }
    if (seg.collective >= 0 || seg.exchange >= 0) turn = 1 - x;
  }
  wait(0);
  wait(1);
}

/// A pass alone: its fused blocks, each after the exchanges it waits for and before those it queues; when the
/// task's gradients are final (`last_gradient`), `on_layer_done` follows each block that ends a layer's backward.
void append_alone(std::vector<Op>& ops, const Resolved& r, const PipelineWiring& wiring, bool last_gradient,
                  const std::function<void(int layer)>& on_layer_done, const LayerParams& layer_params) {
  const auto& pieces = r.chain->fused;
  for (size_t i = 0; i < pieces.size(); ++i) {
    const Piece& piece = pieces[i];
    if (piece.params_of_layer >= 0 && layer_params)
      layer_params(piece.params_of_layer, next_layer(pieces, i + 1, &Piece::params_of_layer));
    for (int key : piece.waits)
      for (int spec : wiring.exchange_specs(key)) ops.push_back(wait_collective(spec, r.pass));
    if (piece.compute >= 0) ops.push_back(compute(piece.compute, r.step()));
    if (piece.host_sync) ops.push_back(HostSyncOp{});
    for (int key : piece.starts)
      for (int spec : wiring.exchange_specs(key)) ops.push_back(start_collective(spec));
    if (last_gradient && piece.gradients_of_layer >= 0 && on_layer_done) on_layer_done(piece.gradients_of_layer);
  }
}

}  // namespace

void append_pipeline_ops(std::vector<Op>& ops, int stage, const std::vector<strategy::PipelineTask>& order,
                         const strategy::PipelineSchedule& schedule, const PipelineWiring& wiring,
                         const std::function<void(int local_chunk)>& on_chunk_done,
                         const std::function<void(int layer)>& on_layer_done, const LayerParams& layer_params) {
  using TaskPass = strategy::PipelineTask::Pass;
  const int chunks = static_cast<int>(wiring.owner.size());
  // A chunk's gradients are final after its last whole backward or weight-gradient task.
  std::vector<size_t> last_gradient(schedule.chunks_per_stage(), order.size());
  for (size_t i = 0; i < order.size(); ++i)
    if (order[i].pass == TaskPass::Backward || order[i].pass == TaskPass::BackwardWeight) last_gradient[order[i].chunk] = i;
  auto remote = [&](int j) { return j >= 0 && j < chunks && wiring.owner[j] != stage; };
  // Composite tasks: a task alone, or a task and the one braided with it.
  std::vector<std::pair<size_t, size_t>> composites;  // first task, task count
  for (size_t i = 0; i < order.size(); i += composites.back().second)
    composites.push_back({i, i + 1 < order.size() && order[i + 1].braided ? 2 : 1});
  const int offloaded = schedule.offloaded_chunk();
  auto needs_reload = [&](const strategy::PipelineTask& t) {
    return t.chunk == offloaded && (t.pass == TaskPass::Backward || t.pass == TaskPass::BackwardInput);
  };
  std::map<int, int> copied_out, copied_in;  // micro-batch -> event of its offloaded chunk's copy out / back
  auto copy = [&](uint8_t stream, const strategy::PipelineTask& t, int after) {
    const int event = static_cast<int>(ops.size()), j = schedule.model_chunk(wiring.pp, stage, t.chunk);
    CommAsyncOp op = comm_async(wiring.offload_cost[j], event, Pass::None, j);
    op.stream = stream;
    op.after = after;
    ops.push_back(op);
    return event;
  };

  for (size_t c = 0; c < composites.size(); ++c) {
    const auto [i, n] = composites[c];
    std::array<Resolved, 2> tasks;
    for (size_t k = 0; k < n; ++k) {
      tasks[k] = resolve(order[i + k], stage, schedule, wiring);
      const Resolved& r = tasks[k];
      if (remote(r.from)) wiring.activations->receive(ops, wiring.worker(wiring.owner[r.from]), r.step());
      wiring.activations->before_compute(ops, r.step());
    }
    // Prefetch: copy back what the next composite's backward needs while this one computes.
    if (c + 1 < composites.size())
      for (size_t k = 0; k < composites[c + 1].second; ++k) {
        const auto& next = order[composites[c + 1].first + k];
        if (needs_reload(next) && copied_out.count(next.micro_batch))
          copied_in[next.micro_batch] = copy(kHostToDeviceStream, next, copied_out[next.micro_batch]);
      }
    for (size_t k = 0; k < n; ++k) {
      const auto& task = order[i + k];
      if (needs_reload(task)) {
        if (!copied_in.count(task.micro_batch))  // not prefetched: copy back now
          copied_in[task.micro_batch] = copy(kHostToDeviceStream, task, copied_out.at(task.micro_batch));
        ops.push_back(wait_event(copied_in[task.micro_batch], wiring.offload_cost[tasks[k].chunk]));
      }
    }
    if (n == 1)
      append_alone(ops, tasks[0], wiring, i == last_gradient[order[i].chunk], on_layer_done, layer_params);
    else
      append_braided(ops, tasks, wiring, layer_params);
    for (size_t k = 0; k < n; ++k) {
      const Resolved& r = tasks[k];
      const auto& task = order[i + k];
      if (task.chunk == offloaded && task.pass == TaskPass::Forward) copied_out[task.micro_batch] = copy(kDeviceToHostStream, task, -1);
      if (remote(r.to)) wiring.activations->send(ops, wiring.worker(wiring.owner[r.to]), {r.pass, r.micro_batch, r.to});
      if (i + k == last_gradient[task.chunk] && on_chunk_done) on_chunk_done(task.chunk);
    }
  }
}

}  // namespace llmsim::workload
