#include "llmsim/workload/training.hpp"

#include <algorithm>
#include <map>
#include <string>
#include <utility>

#include "llmsim/hardware/power_model.hpp"
#include "llmsim/model/optimizer.hpp"
#include "llmsim/model/transformer.hpp"
#include "llmsim/platform/topology.hpp"
#include "llmsim/util/error.hpp"
#include "llmsim/workload/model_parts.hpp"
#include "llmsim/workload/replica_fold.hpp"

namespace llmsim::workload {
namespace {

using collectives::Kind;

TrainingLayout layout_of(const scenario::Scenario& s, const strategy::PipelineSchedule& schedule) {
  TrainingLayout l;
  const auto& par = s.parallelism;
  l.pp = par.pp, l.dp = par.dp, l.tp = par.tp, l.ep = par.ep, l.v = schedule.chunks_per_stage();
  l.cp = par.cp, l.replicas = par.dp_cp();
  l.chunks = l.pp * l.v;
  l.layers_of = strategy::chunk_layers(s, schedule);
  l.first_layer_of.assign(l.chunks, 0);
  for (int j = 1; j < l.chunks; ++j) l.first_layer_of[j] = l.first_layer_of[j - 1] + l.layers_of[j - 1];
  l.owner = chunk_owners(schedule, l.pp);
  for (int j = 0; j < l.chunks; ++j) l.stage_of_layer.insert(l.stage_of_layer.end(), l.layers_of[j], l.owner[j]);
  l.chunk_of.assign(l.pp, std::vector<int>(l.v));
  for (int stage = 0; stage < l.pp; ++stage)
    for (int c = 0; c < l.v; ++c) l.chunk_of[stage][c] = schedule.model_chunk(l.pp, stage, c);
  l.simulated_dp = l.dp;  // simulated_dp() reads the placement of the whole layout
  l.simulated_dp = simulated_dp(s, l, platform::make_topology(s)->fold_unit_nodes(s.cluster));
  return l;
}

/// Passes of each global chunk: forward (F), activation-gradient backward (B, with recomputation and the tp
/// collectives), weight-gradient backward (W) and the whole backward (B + W) for schedules that do not split
/// it; with MoE layers, as seen by each expert-parallel rank (its experts' tokens differ). Then the FLOPs.
void plan_passes(TrainingPlan& plan, const scenario::Scenario& s, const hardware::ComputeModel& cm,
                 const strategy::MoeLayout& moe_layout) {
  const TrainingLayout& l = plan.layout;
  Workload& w = plan.workload;
  for (int r = 0; r < l.ep; ++r)
    plan.passes.push_back(
        build_chunk_passes(s, cm, l.layers_of, w.costs, plan.moe.empty() ? nullptr : &plan.moe, r, moe_layout));
  double fwd_flops_job = 0, hw_flops_job = 0;  // per micro-batch, tp rank and data-parallel group of ep replicas
  auto flops_of = [&](const PassChain& chain) {
    double f = 0;
    for (const auto& piece : chain.fused) f += w.costs[piece.compute].flops;
    return f;
  };
  for (const auto& rank : plan.passes)
    for (const auto& c : rank) {
      fwd_flops_job += flops_of(c.forward) / l.ep;
      hw_flops_job += (flops_of(c.forward) + flops_of(c.backward)) / l.ep;
    }
  // Copying one micro-batch's activations of a chunk over the host link (activation offload).
  for (int j = 0; j < l.chunks; ++j) {
    ComputeCost copy{"activation copy", 0, {}, 0};
    copy.duration = copy.by_category[static_cast<int>(TimeCategory::Offload)] =
        chunk_activation_bytes(s, l.first_layer_of[j], l.layers_of[j], s.training.recompute) /
        s.hardware.host_link_bandwidth;
    plan.offload_cost.push_back(static_cast<int>(w.costs.size()));
    w.costs.push_back(copy);
  }
  // Per micro-batch and tp rank -> whole job per iteration.
  const double replicas = double(plan.micro_batches) * l.replicas * l.tp;
  plan.model_flops = 3 * fwd_flops_job * replicas;
  plan.hardware_flops = hw_flops_job * replicas;
}

}  // namespace

int first_rank(const scenario::Scenario& s, const TrainingLayout& l, int c, int d, int stage) {
  const std::string& order = s.parallelism.rank_order;
  int index = 0, stride = 1;
  for (size_t at = 3; at < order.size(); at += 3) {  // the dimensions after "tp"
    const std::string dim = order.substr(at, 2);
    const int coordinate = dim == "cp" ? c : dim == "dp" ? d : stage, size = dim == "cp" ? l.cp : dim == "dp" ? l.dp : l.pp;
    index += coordinate * stride;
    stride *= size;
  }
  return l.tp * index;
}

namespace {

/// Workers: one per (stage, simulated replica), placed by parallelism.rank_order, in worker_of's order.
void place_workers(const TrainingLayout& l, const scenario::Scenario& s, Workload& w) {
  const int gpus_per_node = s.cluster.gpus_per_node;
  for (int stage = 0; stage < l.pp; ++stage)
    for (int r = 0; r < l.replicas; ++r) {
      if (!l.simulated(r)) continue;
      Worker wk;
      wk.first_rank = first_rank(s, l, r / l.dp, r % l.dp, stage);
      wk.node = wk.first_rank / gpus_per_node;
      wk.first_local = wk.first_rank % gpus_per_node;
      wk.width = l.tp;
      wk.stage = stage;
      w.workers.push_back(wk);
    }
}

/// The nodes of expert-parallel group `g` (of cp rank `c` on `stage`) and their pattern: each rank's node numbered by
/// first appearance in the group (two groups laid out alike over their nodes have the same pattern).
std::pair<std::vector<int>, std::vector<int>> ep_group_nodes(const scenario::Scenario& s, const TrainingLayout& l,
                                                              int stage, int c, int g) {
  std::vector<int> nodes, pattern;
  std::map<int, int> index;
  for (int a = 0; a < l.ep; ++a) {
    nodes.push_back(first_rank(s, l, c, g * l.ep + a, stage) / s.cluster.gpus_per_node);
    pattern.push_back(index.emplace(nodes.back(), static_cast<int>(index.size())).first->second);
  }
  return {nodes, pattern};
}

std::string pattern_text(const std::vector<int>& pattern) {
  std::string out;
  for (int n : pattern) out += (out.empty() ? "" : ",") + std::to_string(n);
  return out;
}

/// Node of each expert-parallel rank of the first group (stage 0, cp rank 0): how per-node token copies relay, the
/// first group's traffic standing for every group's. With per-node copies every group must be laid out alike over
/// its nodes; a ScenarioError otherwise.
std::vector<int> ep_rank_nodes(const scenario::Scenario& s, const TrainingLayout& l) {
  const auto first = ep_group_nodes(s, l, 0, 0, 0);
  if (s.parallelism.ep_dispatch != "per-node") return first.first;
  for (int stage = 0; stage < l.pp; ++stage)
    for (int c = 0; c < l.cp; ++c)
      for (int g = 0; g < l.dp / l.ep; ++g) {
        const auto other = ep_group_nodes(s, l, stage, c, g).second;
        if (other == first.second) continue;
        throw ScenarioError("/parallelism/ep_dispatch",
                            "per-node copies relay by the first expert-parallel group's layout over its nodes (ranks' "
                            "nodes " + pattern_text(first.second) + "), which group " + std::to_string(g) +
                                " of stage " + std::to_string(stage) + " does not share (" + pattern_text(other) +
                                "): choose ep and cluster.gpus_per_node so that every group spans its nodes alike");
      }
  return first.first;
}

/// One group of the dp * cp replicas per stage (its index per stage), checked against
/// network.collective_algorithm.
std::vector<int> add_dp_groups(const scenario::Scenario& s, const TrainingLayout& l, Workload& w) {
  const auto algorithm = collectives::algorithm_from_name(s.network.collective_algorithm);
  const auto kind = s.training.zero_stage >= 1 ? Kind::ReduceScatter : Kind::AllReduce;
  std::vector<int> dp_group(l.pp);
  for (int stage = 0; stage < l.pp; ++stage) {
    std::vector<int> g;
    for (int r = 0; r < l.replicas; ++r)
      if (l.simulated(r)) g.push_back(l.worker_of(stage, r));
    g = in_topology_order(std::move(g), w);
    collectives::GroupLayout layout;
    layout.switch_reduction = s.hardware.nvswitch_reduction;
    for (int member : g) layout.node_of_member.push_back(w.workers[member].node);
    if (l.replicas > 1 && algorithm != collectives::Algorithm::Auto && !collectives::supports(kind, algorithm, layout))
      throw ScenarioError("/network/collective_algorithm",
                          std::string("\"") + collectives::algorithm_name(algorithm) + "\" cannot run the " +
                              collectives::kind_name(kind) + " of the " + std::to_string(l.replicas) +
                              " data-parallel ranks: it needs " + collectives::requirements(algorithm));
    dp_group[stage] = static_cast<int>(w.groups.size());
    if (l.simulated_dp < l.dp) w.represents[dp_group[stage]] = l.replicas;
    w.groups.push_back(g);
  }
  return dp_group;
}

/// Tied embeddings with pp > 1: the first and last stage of each replica all-reduce the embedding gradient
/// after the pipeline (Megatron's _allreduce_embedding_grads).
void add_tied_embedding(TrainingPlan& plan, const scenario::Scenario& s) {
  const TrainingLayout& l = plan.layout;
  Workload& w = plan.workload;
  plan.tied_embedding.assign(l.replicas, -1);
  if (!s.model.tied_embeddings || l.pp == 1) return;
  const double grad_bytes_per_param = model::gradient_bytes_per_param(model::LayerShape::from(s).precision,
                                                                     s.training.grad_reduce_in_fp32);
  for (int r = 0; r < l.replicas; ++r) {
    if (!l.simulated(r)) continue;
    plan.tied_embedding[r] = static_cast<int>(w.collectives.size());
    w.collectives.push_back({"tied embedding grad", static_cast<int>(w.groups.size()), Kind::AllReduce,
                             double(s.model.vocab) * s.model.hidden / l.tp * grad_bytes_per_param,
                             TimeCategory::PpComm, collectives::Algorithm::Auto, {}});
    w.groups.push_back({l.worker_of(0, r), l.worker_of(l.pp - 1, r)});
  }
}

/// What stage `stage` holds and does: parameters, memory, order, the optimizer step (model::optimizer_step_bytes
/// per parameter of its shard: Adam 28 + e for 16-bit training) and
/// the gradient-sync hook's collectives.
StagePlan plan_stage(TrainingPlan& plan, const scenario::Scenario& s, const hardware::ComputeModel& cm,
                     const strategy::PipelineSchedule& schedule, const GradientSync& sync, int stage, int dp_group,
                     bool per_layer_grads) {
  const TrainingLayout& l = plan.layout;
  StagePlan sp;
  sp.stage = stage;
  StageGradients g;
  g.dp_group = dp_group;
  double set_bytes = 0;  // activations of the stage's largest (micro-batch, chunk) set
  double fp8_copies = 0, replicas = 0;  // replicas: parameters of the expert replicas beyond experts/ep
  for (int c = 0; c < l.v; ++c) {
    const int j = l.chunk_of[stage][c], first = l.first_layer_of[j], layers = l.layers_of[j];
    g.chunk_params.push_back(chunk_params(s, j, l.chunks, first, layers).total());
    replicas += replica_params(s, plan.moe, first, layers);
    g.parts.push_back(gradient_parts(s, j, l.chunks, first, layers, per_layer_grads));
    sp.layers += layers;
    set_bytes = std::max(set_bytes, chunk_activation_bytes(s, first, layers, s.training.recompute));
    fp8_copies += fp8_weight_copy_bytes(s, first, layers);
    sp.params += g.chunk_params.back();
  }
  g.params = sp.params;
  sp.order = schedule.stage_order({l.pp, stage, plan.micro_batches});
  sp.max_in_flight = strategy::max_in_flight(sp.order, schedule.offloaded_chunk());
  sp.memory = sync.state_memory(sp.params + replicas);
  sp.memory.weights += fp8_copies + fp8_copy_bytes_per_param(s) * replicas;
  sp.memory.activations = activation_memory(s, set_bytes, sp.max_in_flight);

  ComputeCost opt{"optimizer", 0, {}, 0};
  opt.duration = opt.by_category[static_cast<int>(TimeCategory::Optimizer)] =
      cm.memory_time(sync.optimizer_params(sp.params + replicas) *
                     model::optimizer_step_bytes(s));
  opt.dynamic_energy = hardware::memory_bound_energy(cm, opt.duration);
  sp.optimizer_cost = static_cast<int>(plan.workload.costs.size());
  plan.workload.costs.push_back(opt);

  if (l.replicas / l.ep > 1)  // the replicas holding the same experts (dp/ep of each cp rank)
    for (int a = 0; a < l.ep; ++a) {
      std::vector<int> members;
      for (int r = a; r < l.replicas; r += l.ep)
        if (l.simulated(r)) members.push_back(l.worker_of(stage, r));
      g.expert_members.push_back(in_topology_order(std::move(members), plan.workload));
    }
  if (l.simulated_dp < l.dp) g.expert_group_represents = l.replicas / l.ep;
  sp.sync = sync.plan(g, plan.workload);
  sp.memory.weights += sync.gathered_bytes(g);
  return sp;
}

}  // namespace

TrainingPlan plan_training(const scenario::Scenario& s, const hardware::ComputeModel& cm,
                           const strategy::TrainingStrategies& strategies) {
  const strategy::PipelineSchedule& schedule = *strategies.schedule;
  const strategy::MoeLayout moe_layout = strategies.moe_pipeline->layout();
  TrainingPlan plan;
  plan.layout = layout_of(s, schedule);
  const TrainingLayout& l = plan.layout;
  plan.micro_batches = s.training.micro_batches_per_pipeline(l.dp);
  plan.virtual_stages = l.v;
  plan.tokens = double(s.training.global_batch) * s.training.seq_len;
  plan.workload.iterations = s.training.iterations;
  plan.moe = plan_moe(s, *strategies.routing, *strategies.expert_placement, ep_rank_nodes(s, l));
  plan_passes(plan, s, cm, moe_layout);
  const double act_bytes = model::tp_activation_bytes(model::LayerShape::from(s));
  const bool gathers = s.training.scatter_gather_p2p && l.tp > 1;
  plan.p2p_overlapped = s.parallelism.overlap_p2p_comm && schedule.hosts_p2p_overlap() && l.pp > 1;
  plan.activations = std::make_shared<PipelineP2p>(gathers ? act_bytes / l.tp : act_bytes, plan.p2p_overlapped);
  place_workers(l, s, plan.workload);
  const std::vector<int> dp_group = add_dp_groups(s, l, plan.workload);
  plan.exchanges = add_moe_exchanges(s, plan.moe, l.stage_of_layer,
                                     [&](int stage, int replica) { return l.worker_of(stage, replica); },
                                     moe_layout, plan.workload);
  plan.cp = add_cp_exchanges(s, l.pp, [&](int stage, int replica) { return l.worker_of(stage, replica); },
                             plan.workload);
  add_tied_embedding(plan, s);
  const auto sync = make_gradient_sync(s, moe_layout);
  for (int stage = 0; stage < l.pp; ++stage)
    plan.stages.push_back(
        plan_stage(plan, s, cm, schedule, *sync, stage, dp_group[stage],
                   moe_layout.gradient_chunk_bytes > 0 || s.training.zero_stage == 3));
  return plan;
}

TrainingPlan build_training(const scenario::Scenario& s, const hardware::ComputeModel& cm,
                            const strategy::TrainingStrategies& strategies) {
  TrainingPlan plan = plan_training(s, cm, strategies);
  emit_training(plan, *strategies.schedule);
  return plan;
}

}  // namespace llmsim::workload
