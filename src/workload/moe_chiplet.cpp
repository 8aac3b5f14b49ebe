#include "llmsim/workload/moe_chiplet.hpp"

#include <algorithm>
#include <array>
#include <numeric>

#include "llmsim/model/moe.hpp"
#include "llmsim/strategy/moe_pipeline.hpp"
#include "llmsim/workload/kernel_cost.hpp"

namespace llmsim::workload {

namespace {

using model::concat;
using model::Kernel;
using Kernels = std::vector<Kernel>;

/// Forward kernels, or the backward (dgrad + wgrad, 2x the GEMM FLOPs) of them.
Kernels of_pass(const Kernels& forward, bool backward) {
  return backward ? concat(model::backward_input(forward), model::backward_weight(forward)) : forward;
}

/// A hosted expert of an expert chiplet in one MoE layer: its cost per pass and its tokens.
struct Slot {
  int cost[2];
  double tokens;
};
using Slots = std::vector<std::vector<std::vector<Slot>>>;  ///< [MoE layer][expert chiplet], hottest first

/// What the ops of one pass need: sizes, the costs of each chiplet, and the pass's layer order.
struct PassContext {
  PassContext(const MoePlan& m, const std::vector<std::array<int, 2>>& root, const Slots& s)
      : moe(m), root_cost(root), slots(s) {}
  const MoePlan& moe;
  const std::vector<std::array<int, 2>>& root_cost;  ///< [layer][pass] attention chiplet
  const Slots& slots;
  int D = 0, M = 0, per_group = 1;  ///< expert chiplets, micro-batches, chiplets per DRAM
  bool streaming = false;
  double vector_bytes = 0, expert_bytes = 0;  ///< [bytes] a token's activations; an expert's weights
  int p = 0;                                  ///< 0 forward, 1 backward
  std::vector<int> order;                     ///< layers in the pass's order
  Pass pass() const { return p ? Pass::Backward : Pass::Forward; }
};

/// Attention chiplet: per layer and micro-batch its compute, then the token copies out to the expert chiplets
/// and (streaming: one layer later) their outputs back.
void append_attention_chiplet(std::vector<Op>& root, const PassContext& c) {
  const Pass pass = c.pass();
  auto scatter = [&](int l, int b) {
    const auto& copies = c.moe.traffic[c.moe.moe_index[l]].copies;
    for (int d = 0; d < c.D; ++d) root.push_back(send_to(1 + d, {pass, b, l}, copies[d] * c.vector_bytes));
  };
  auto gather = [&](int l, int b) {
    for (int d = 0; d < c.D; ++d) root.push_back(recv_from(1 + d, {pass, b, l}));
  };
  const auto& order = c.order;
  for (size_t k = 0; k < order.size(); ++k) {
    const int l = order[k];
    const bool expert_layer = c.moe.moe_index[l] >= 0;
    for (int b = 0; b < c.M; ++b) {
      if (c.streaming && k > 0 && c.moe.moe_index[order[k - 1]] >= 0) gather(order[k - 1], b);
      root.push_back(compute(c.root_cost[l][c.p], {pass, b, l}));
      if (!expert_layer) continue;
      scatter(l, b);
      if (!c.streaming) gather(l, b);
    }
  }
  if (c.streaming && c.moe.moe_index[order.back()] >= 0)
    for (int b = 0; b < c.M; ++b) gather(order.back(), b);
}

/// Expert chiplet d: weights of each (layer, micro-batch) read from the group's DRAM, its experts computed on
/// the tokens received, the outputs sent back (backward: the weight gradients written back to DRAM).
void append_expert_chiplet(std::vector<Op>& ops, const PassContext& c, int d) {
  const Pass pass = c.pass();
  const int memory = d / c.per_group;
  std::vector<int> stores;
  struct Task {
    int layer, micro_batch;
    size_t slot;
  };
  std::vector<Task> tasks;
  for (int l : c.order) {
    const int index = c.moe.moe_index[l];
    if (index < 0) continue;
    for (int b = 0; b < c.M; ++b)
      if (c.slots[index][d].empty())
        tasks.push_back({l, b, 0});  // nothing to compute: still receives and answers
      else
        for (size_t i = 0; i < c.slots[index][d].size(); ++i) tasks.push_back({l, b, i});
  }
  auto load = [&]() {
    const int event = static_cast<int>(ops.size());  // unique event id on this worker
    ops.push_back(read_memory(memory, c.expert_bytes, event));
    return event;
  };
  auto has_slots = [&](size_t i) { return !c.slots[c.moe.moe_index[tasks[i].layer]][d].empty(); };
  auto next_with_slots = [&](size_t from) {
    while (from < tasks.size() && !has_slots(from)) ++from;
    return from;
  };
  int in_flight = -1;  // streaming: the read of the next expert to compute
  if (c.streaming && next_with_slots(0) < tasks.size()) in_flight = load();
  for (size_t i = 0; i < tasks.size(); ++i) {
    const Task& t = tasks[i];
    const auto& mine = c.slots[c.moe.moe_index[t.layer]][d];
    const bool first = t.slot == 0, last = mine.empty() || t.slot + 1 == mine.size();
    if (first) ops.push_back(recv_from(0, {pass, t.micro_batch, t.layer}));
    if (!mine.empty()) {
      if (c.streaming) {
        ops.push_back(wait_memory(in_flight));
        in_flight = next_with_slots(i + 1) < tasks.size() ? load() : -1;
      } else if (first) {  // on demand: the tokens say which experts to read, all before computing
        std::vector<int> reads;
        for (size_t k = 0; k < mine.size(); ++k) reads.push_back(load());
        for (int ev : reads) ops.push_back(wait_memory(ev));
      }
    }
    if (!mine.empty()) {
      ops.push_back(compute(mine[t.slot].cost[c.p], {pass, t.micro_batch, t.layer}));
      if (c.p) {  // the weight gradient goes back to DRAM
        stores.push_back(static_cast<int>(ops.size()));
        ops.push_back(write_memory(memory, c.expert_bytes, stores.back()));
      }
    }
    if (last) {
      const double copies = c.moe.traffic[c.moe.moe_index[t.layer]].copies[d];
      ops.push_back(send_to(0, {pass, t.micro_batch, t.layer}, copies * c.vector_bytes));
    }
  }
  for (int ev : stores) ops.push_back(wait_memory(ev));
}

}  // namespace

namespace {
/// Every chiplet's compute costs, added to `w`, and the iteration's forward FLOPs.
struct ChipletCosts {
  std::vector<std::array<int, 2>> root;  ///< [layer][pass] the attention chiplet
  Slots slots;                           ///< the expert chiplets' hosted experts, hottest first
  double forward_flops = 0;
};

ChipletCosts chiplet_costs(const scenario::Scenario& s, const hardware::ComputeModel& cm, const MoePlan& plan,
                           int M, Workload& w) {
  const auto& moe = s.model.moe;
  const auto x = model::LayerShape::from(s);
  const int D = s.parallelism.ep, L = s.model.layers;
  auto add_cost = [&](const std::string& name, const Kernels& kernels) {
    w.costs.push_back(kernel_cost(name, kernels, cm));
    return static_cast<int>(w.costs.size()) - 1;
  };
  ChipletCosts c;
  // Attention chiplet: per layer and pass, attention plus router, shared experts and permutation (MoE) or the
  // dense FFN.
  c.root.resize(L);
  for (int l = 0; l < L; ++l) {
    const Kernels k = moe.is_moe_layer(l)
                          ? concat(concat(model::attention_forward(x), model::moe_pre_forward(x, moe)), model::moe_post_forward(x, moe))
                          : model::layer_forward(x);
    for (int p = 0; p < 2; ++p) c.root[l][p] = add_cost(p ? "B attention chiplet" : "F attention chiplet", of_pass(k, p));
    c.forward_flops += model::total_flops(k) * M;
  }
  // Expert chiplets: per MoE layer, chiplet and pass, each hosted expert on its tokens (hottest first).
  c.slots.assign(plan.traffic.size(), std::vector<std::vector<Slot>>(D));
  for (size_t i = 0; i < plan.traffic.size(); ++i)
    for (int d = 0; d < D; ++d) {
      auto& slots = c.slots[i][d];
      for (double n : plan.traffic[i].slot_tokens[d]) {
        if (n <= 0) continue;  // an expert without tokens is not read
        const Kernels k = model::expert_forward(x, moe, n);
        slots.push_back({{add_cost("F expert", k), add_cost("B expert", of_pass(k, true))}, n});
        c.forward_flops += model::total_flops(k) * M;
      }
      std::stable_sort(slots.begin(), slots.end(), [](const Slot& a, const Slot& b) { return a.tokens > b.tokens; });
    }
  return c;
}
}  // namespace

TrainingPlan build_moe_chiplet(const scenario::Scenario& s, const hardware::ComputeModel& cm,
                               const strategy::TrainingStrategies& strategies) {
  TrainingPlan plan;
  const auto& tr = s.training;
  plan.moe = plan_moe(s, *strategies.routing, *strategies.expert_placement);
  const int D = s.parallelism.ep, M = tr.global_batch / tr.micro_batch, L = s.model.layers;
  plan.micro_batches = M;
  plan.tokens = double(tr.global_batch) * tr.seq_len;
  Workload& w = plan.workload;
  w.iterations = tr.iterations;
  for (int i = 0; i <= D; ++i) {
    Worker wk;
    wk.node = wk.first_rank = i;
    w.workers.push_back(wk);
  }
  const ChipletCosts costs = chiplet_costs(s, cm, plan.moe, M, w);
  plan.model_flops = plan.hardware_flops = 3 * costs.forward_flops;

  PassContext c{plan.moe, costs.root, costs.slots};
  c.D = D, c.M = M, c.per_group = s.cluster.topology.params.integer("chiplets_per_group");
  c.streaming = strategies.moe_pipeline->streaming();
  const double e = model::LayerShape::from(s).bytes_per_element();
  c.vector_bytes = s.model.hidden * e;
  c.expert_bytes = model::ffn_params(s.model, s.model.moe.expert_ffn_hidden) * e;
  c.order.resize(L);
  std::iota(c.order.begin(), c.order.end(), 0);
  for (int it = 0; it < tr.iterations; ++it) {
    for (c.p = 0; c.p < 2; ++c.p) {
      append_attention_chiplet(w.workers[0].ops, c);
      for (int d = 0; d < D; ++d) append_expert_chiplet(w.workers[1 + d].ops, c, d);
      std::reverse(c.order.begin(), c.order.end());  // the backward runs the layers in reverse
    }
    for (auto& wk : w.workers) wk.ops.push_back(end_iteration(it));
  }
  return plan;
}

}  // namespace llmsim::workload
