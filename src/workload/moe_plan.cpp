#include "llmsim/workload/moe_plan.hpp"

#include <algorithm>

#include "llmsim/model/transformer.hpp"

namespace llmsim::workload {

MoePlan plan_moe(const scenario::Scenario& s, const moe::RoutingModel& routing,
                 const strategy::ExpertPlacementStrategy& placement, const std::vector<int>& node_of_rank) {
  MoePlan plan;
  const auto& moe = s.model.moe;
  plan.moe_index.assign(s.model.transformer_layers(), -1);
  if (!moe.enabled()) return plan;
  const int ep = s.parallelism.ep;
  const bool chiplet = s.kind == "moe-chiplet";  // one token source: the attention chiplet
  const int sources = chiplet ? 1 : ep;
  const double tokens = double(s.training.micro_batch) * s.training.seq_len / s.parallelism.cp;  // a rank's
  const int sample = static_cast<int>(std::min<double>(tokens, kRoutingSampleTokens));
  const auto copies = moe::CopyRule::named(s.parallelism.ep_dispatch, node_of_rank);
  for (int layer = 0, index = 0; layer < s.model.transformer_layers(); ++layer) {
    if (!moe.is_moe_layer(layer)) continue;
    plan.moe_index[layer] = index;
    std::vector<moe::RoutingSample> simulated, profiled;
    for (int r = 0; r < sources; ++r) {
      auto rng = moe::routing_rng(s.seed, index, r, 0);
      simulated.push_back(routing.route(index, sample, rng));
      auto profile_rng = moe::routing_rng(s.seed, index, r, 2);
      profiled.push_back(routing.route(index, sample, profile_rng));
    }
    plan.placements.push_back(placement.place(moe::stats_of(profiled, moe.experts), ep));
    plan.traffic.push_back(moe::route_layer(simulated, plan.placements.back(), moe.experts,
                                            copies, moe.capacity_factor,
                                            tokens / sample, !chiplet));
    ++index;
  }
  return plan;
}

double replica_params(const scenario::Scenario& s, const MoePlan& plan, int first, int layers) {
  if (plan.empty()) return 0;
  const auto& m = s.model;
  const int base = m.moe.experts / s.parallelism.ep;
  double replicas = 0;
  for (int l = first; l < first + layers; ++l)
    if (const int i = plan.moe_index[l]; i >= 0) replicas += plan.placements[i].max_slots() - base;
  return replicas * model::ffn_params(m, m.moe.expert_ffn_hidden) / s.parallelism.tp;
}

}  // namespace llmsim::workload
