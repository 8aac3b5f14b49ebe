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

}  // namespace

TrainingPlan build_moe_chiplet(const scenario::Scenario& s, const hardware::ComputeModel& cm) {
  TrainingPlan plan;
  const auto& moe = s.model.moe;
  const auto& tr = s.training;
  plan.moe = plan_moe(s);
  const int D = s.parallelism.ep, M = tr.global_batch / tr.micro_batch, L = s.model.layers;
  const int per_group = s.cluster.topology.params.at("chiplets_per_group").get<int>();
  const bool streaming = strategy::make_moe_pipeline(s)->streaming();
  plan.micro_batches = M;
  plan.tokens = double(tr.global_batch) * tr.seq_len;
  Workload& w = plan.workload;
  w.iterations = tr.iterations;
  for (int i = 0; i <= D; ++i) {
    Worker wk;
    wk.node = wk.first_rank = i;
    w.workers.push_back(wk);
  }
  const auto x = model::LayerShape::from(s);
  const double e = x.bytes_per_element, vector_bytes = s.model.hidden * e;
  const double expert_bytes = model::ffn_params(s.model, moe.expert_ffn_hidden) * e;
  auto add_cost = [&](const std::string& name, const Kernels& kernels) {
    w.costs.push_back(kernel_cost(name, kernels, cm));
    return static_cast<int>(w.costs.size()) - 1;
  };
  double forward_flops = 0;

  // Attention chiplet: per layer and pass, attention plus router, shared experts and permutation (MoE) or the
  // dense FFN.
  std::vector<std::array<int, 2>> root_cost(L);
  for (int l = 0; l < L; ++l) {
    const Kernels k = moe.is_moe_layer(l)
                          ? concat(concat(model::attention_forward(x), model::moe_pre_forward(x, moe)), model::moe_post_forward(x, moe))
                          : model::layer_forward(x);
    for (int p = 0; p < 2; ++p) root_cost[l][p] = add_cost(p ? "B attention chiplet" : "F attention chiplet", of_pass(k, p));
    forward_flops += model::total_flops(k) * M;
  }
  // Expert chiplets: per MoE layer, chiplet and pass, each hosted expert on its tokens (hottest first).
  struct Slot {
    int cost[2];
    double tokens;
  };
  std::vector<std::vector<std::vector<Slot>>> slots(plan.moe.traffic.size(), std::vector<std::vector<Slot>>(D));
  for (size_t i = 0; i < plan.moe.traffic.size(); ++i)
    for (int d = 0; d < D; ++d) {
      const auto& tokens = plan.moe.traffic[i].slot_tokens[d];
      for (double n : tokens) {
        if (n <= 0) continue;  // an expert without tokens is not read
        const Kernels k = model::expert_forward(x, moe, n);
        slots[i][d].push_back({{add_cost("F expert", k), add_cost("B expert", of_pass(k, true))}, n});
        forward_flops += model::total_flops(k) * M;
      }
      std::stable_sort(slots[i][d].begin(), slots[i][d].end(), [](const Slot& a, const Slot& b) { return a.tokens > b.tokens; });
    }
  plan.model_flops = plan.hardware_flops = 3 * forward_flops;

  for (int it = 0; it < tr.iterations; ++it) {
    for (int p = 0; p < 2; ++p) {
      const Pass pass = p ? Pass::Backward : Pass::Forward;
      std::vector<int> order(L);
      std::iota(order.begin(), order.end(), 0);
      if (p) std::reverse(order.begin(), order.end());
      // Attention chiplet.
      auto& root = w.workers[0].ops;
      auto scatter = [&](int l, int b) {
        const auto& copies = plan.moe.traffic[plan.moe.moe_index[l]].copies;
        for (int d = 0; d < D; ++d) root.push_back({Op::Kind::Send, pass, b, l, 1 + d, copies[d] * vector_bytes});
      };
      auto gather = [&](int l, int b) {
        for (int d = 0; d < D; ++d) root.push_back({Op::Kind::Recv, pass, b, l, 1 + d, 0});
      };
      for (size_t k = 0; k < order.size(); ++k) {
        const int l = order[k];
        const bool expert_layer = plan.moe.moe_index[l] >= 0;
        for (int b = 0; b < M; ++b) {
          if (streaming && k > 0 && plan.moe.moe_index[order[k - 1]] >= 0) gather(order[k - 1], b);
          root.push_back({Op::Kind::Compute, pass, b, l, root_cost[l][p], 0});
          if (!expert_layer) continue;
          scatter(l, b);
          if (!streaming) gather(l, b);
        }
      }
      if (streaming && plan.moe.moe_index[order.back()] >= 0)
        for (int b = 0; b < M; ++b) gather(order.back(), b);
      // Expert chiplets: weights of each (layer, micro-batch) read from the group's DRAM.
      for (int d = 0; d < D; ++d) {
        auto& ops = w.workers[1 + d].ops;
        const int memory = d / per_group;
        std::vector<int> stores;
        struct Task {
          int layer, micro_batch;
          size_t slot;
        };
        std::vector<Task> tasks;
        for (int l : order) {
          const int index = plan.moe.moe_index[l];
          if (index < 0) continue;
          for (int b = 0; b < M; ++b)
            if (slots[index][d].empty())
              tasks.push_back({l, b, 0});  // nothing to compute: still receives and answers
            else
              for (size_t i = 0; i < slots[index][d].size(); ++i) tasks.push_back({l, b, i});
        }
        auto load = [&]() {
          const int event = static_cast<int>(ops.size());  // unique event id on this worker
          ops.push_back({Op::Kind::MemoryStart, pass, event, memory, 0, expert_bytes});
          return event;
        };
        auto has_slots = [&](size_t i) { return !slots[plan.moe.moe_index[tasks[i].layer]][d].empty(); };
        auto next_with_slots = [&](size_t from) {
          while (from < tasks.size() && !has_slots(from)) ++from;
          return from;
        };
        int in_flight = -1;  // streaming: the read of the next expert to compute
        if (streaming && next_with_slots(0) < tasks.size()) in_flight = load();
        for (size_t i = 0; i < tasks.size(); ++i) {
          const Task& t = tasks[i];
          const auto& mine = slots[plan.moe.moe_index[t.layer]][d];
          const bool first = t.slot == 0, last = mine.empty() || t.slot + 1 == mine.size();
          if (first) ops.push_back({Op::Kind::Recv, pass, t.micro_batch, t.layer, 0, 0});
          if (!mine.empty()) {
            if (streaming) {
              ops.push_back({Op::Kind::MemoryWait, pass, in_flight, memory, 0, 0});
              in_flight = next_with_slots(i + 1) < tasks.size() ? load() : -1;
            } else if (first) {  // on demand: the tokens say which experts to read, all before computing
              std::vector<int> reads;
              for (size_t k = 0; k < mine.size(); ++k) reads.push_back(load());
              for (int ev : reads) ops.push_back({Op::Kind::MemoryWait, pass, ev, memory, 0, 0});
            }
          }
          if (!mine.empty()) {
            ops.push_back({Op::Kind::Compute, pass, t.micro_batch, t.layer, mine[t.slot].cost[p], 0});
            if (p) {  // the weight gradient goes back to DRAM
              stores.push_back(static_cast<int>(ops.size()));
              ops.push_back({Op::Kind::MemoryStart, pass, stores.back(), memory, 1, expert_bytes});
            }
          }
          if (last) {
            const double copies = plan.moe.traffic[plan.moe.moe_index[t.layer]].copies[d];
            ops.push_back({Op::Kind::Send, pass, t.micro_batch, t.layer, 0, copies * vector_bytes});
          }
        }
        for (int ev : stores) ops.push_back({Op::Kind::MemoryWait, pass, ev, memory, 0, 0});
      }
    }
    for (auto& wk : w.workers) wk.ops.push_back({Op::Kind::IterationEnd, Pass::None, -1, -1, it, 0});
  }
  return plan;
}

}  // namespace llmsim::workload
