#include "llmsim/workload/training.hpp"

#include <algorithm>
#include <cmath>
#include <map>

#include "llmsim/model/transformer.hpp"
#include "llmsim/util/error.hpp"
#include "llmsim/model/moe.hpp"
#include "llmsim/strategy/moe_pipeline.hpp"
#include "llmsim/workload/chunk_passes.hpp"
#include "llmsim/workload/moe_exchanges.hpp"
#include "llmsim/workload/pipeline_ops.hpp"

namespace llmsim::workload {

namespace {

using collectives::Kind;

/// Parameters per GPU of a part of the model: the dense part (replicated over dp) and the routed experts
/// (split over ep, replicated over dp/ep).
struct ChunkParams {
  double dense = 0, experts = 0;
  double total() const { return dense + experts; }
};
/// Model layer l.
ChunkParams layer_part(const scenario::Scenario& s, int l) {
  const auto& m = s.model;
  const double t = s.parallelism.tp;
  if (!m.moe.is_moe_layer(l)) return {model::layer_params(m) / t, 0};
  return {model::moe_layer_params(m, 0) / t,
          double(m.moe.experts) / s.parallelism.ep * model::ffn_params(m, m.moe.expert_ffn_hidden) / t};
}
/// The embedding held by global model chunk j (the first).
ChunkParams embedding_part(const scenario::Scenario& s, int j) {
  const auto& m = s.model;
  if (j != 0) return {};
  return {model::embedding_params(m) - double(m.vocab) * m.hidden + double(m.vocab) * m.hidden / s.parallelism.tp, 0};
}
/// The final norm and output layer held by global model chunk j (of `chunks`; the last).
ChunkParams head_part(const scenario::Scenario& s, int j, int chunks) {
  const auto& m = s.model;
  if (j != chunks - 1) return {};
  ChunkParams p{2.0 * m.hidden, 0};  // final norm
  if (!m.tied_embeddings || chunks > 1) p.dense += double(m.vocab) * m.hidden / s.parallelism.tp;  // (a tied copy)
  return p;
}
/// Global model chunk j, model layers [first, first + layers).
ChunkParams chunk_params(const scenario::Scenario& s, int j, int chunks, int first, int layers) {
  ChunkParams p = embedding_part(s, j);
  p.dense += head_part(s, j, chunks).dense;
  for (int l = first; l < first + layers; ++l) {
    const ChunkParams x = layer_part(s, l);
    p.dense += x.dense, p.experts += x.experts;
  }
  return p;
}

}  // namespace

const char* time_category_name(TimeCategory c) {
  static const char* names[] = {"gemm", "attention", "elementwise", "tp_comm", "pp_comm", "dp_comm", "ep_comm", "optimizer", "offload", "idle"};
  return names[static_cast<int>(c)];
}

TimeCategory ComputeCost::main_category() const {
  auto cat = TimeCategory::Gemm;
  for (int c = 0; c < kTimeCategories; ++c)
    if (by_category[c] > by_category[static_cast<int>(cat)]) cat = static_cast<TimeCategory>(c);
  return cat;
}

TrainingPlan build_training(const scenario::Scenario& s, const hardware::ComputeModel& cm,
                            const strategy::PipelineSchedule& schedule) {
  const auto& par = s.parallelism;
  const auto& tr = s.training;
  const int pp = par.pp, dp = par.dp, t = par.tp, v = schedule.chunks_per_stage();
  const int chunks = pp * v;
  const std::vector<int> layers_of = strategy::chunk_layers(s, schedule);
  std::vector<int> first_layer_of(chunks, 0);  // model layer index of each chunk's first layer
  for (int j = 1; j < chunks; ++j) first_layer_of[j] = first_layer_of[j - 1] + layers_of[j - 1];
  const auto shape = model::LayerShape::from(s);
  const double act_bytes = model::tp_activation_bytes(shape);
  const bool gathers = tr.scatter_gather_p2p && t > 1;

  TrainingPlan plan;
  plan.micro_batches = tr.micro_batches_per_pipeline(dp);
  plan.virtual_stages = v;
  plan.tokens = double(tr.global_batch) * tr.seq_len;
  const int m = plan.micro_batches;
  Workload& w = plan.workload;
  w.iterations = tr.iterations;

  // Passes of each global chunk: forward (F), activation-gradient backward (B, with recomputation and the tp
  // collectives), weight-gradient backward (W) and the whole backward (B + W) for schedules that do not split it;
  // with MoE layers, as seen by each expert-parallel rank (its experts' tokens differ).
  plan.moe = plan_moe(s);
  const int ep = par.ep;
  const strategy::MoeLayout layout = strategy::make_moe_pipeline(s)->layout();
  const bool per_layer_grads = layout.gradient_chunk_bytes > 0;
  std::vector<std::vector<ChunkPasses>> passes;
  for (int r = 0; r < ep; ++r)
    passes.push_back(build_chunk_passes(s, cm, layers_of, w.costs, plan.moe.empty() ? nullptr : &plan.moe, r, layout));
  double fwd_flops_job = 0, hw_flops_job = 0;  // per micro-batch, tp rank and data-parallel group of ep replicas
  auto flops_of = [&](const PassChain& chain) {
    double f = 0;
    for (const auto& piece : chain.fused) f += w.costs[piece.compute].flops;
    return f;
  };
  for (const auto& rank : passes)
    for (const auto& c : rank) {
      fwd_flops_job += flops_of(c.forward) / ep;
      hw_flops_job += (flops_of(c.forward) + flops_of(c.backward)) / ep;
    }
  // Copying one micro-batch's activations of a chunk over the host link (activation offload).
  std::vector<int> offload_cost(chunks);
  for (int j = 0; j < chunks; ++j) {
    ComputeCost copy{"activation copy", 0, {}, 0};
    copy.duration = copy.by_category[static_cast<int>(TimeCategory::Offload)] =
        chunk_activation_bytes(s, first_layer_of[j], layers_of[j], tr.recompute) / s.hardware.host_link_bandwidth;
    offload_cost[j] = static_cast<int>(w.costs.size());
    w.costs.push_back(copy);
  }
  // Per micro-batch and tp rank -> whole job per iteration.
  const double replicas = double(m) * dp * t;
  plan.model_flops = 3 * fwd_flops_job * replicas;
  plan.hardware_flops = hw_flops_job * replicas;

  const std::vector<int> owner = chunk_owners(schedule, pp);
  std::vector<int> stage_of_layer;
  for (int j = 0; j < chunks; ++j) stage_of_layer.insert(stage_of_layer.end(), layers_of[j], owner[j]);

  // Workers: one per (stage, dp replica), Megatron rank order tp -> dp -> pp.
  auto worker_of = [&](int stage, int replica) { return stage * dp + replica; };
  const int gpn = s.cluster.gpus_per_node;
  for (int stage = 0; stage < pp; ++stage)
    for (int r = 0; r < dp; ++r) {
      Worker wk;
      wk.first_rank = t * (r + dp * stage);
      wk.node = wk.first_rank / gpn;
      wk.first_local = wk.first_rank % gpn;
      wk.width = t;
      wk.stage = stage;
      w.workers.push_back(wk);
    }

  // dp groups: one per stage. Tied-embedding groups: first and last stage of each replica.
  const double grad_bytes_per_param = tr.precision == "bf16" ? 4 : shape.bytes_per_element;
  const auto dp_algorithm = collectives::algorithm_from_name(s.network.collective_algorithm);
  std::vector<int> dp_group(pp);
  for (int stage = 0; stage < pp; ++stage) {
    std::vector<int> g;
    collectives::GroupLayout layout;
    layout.switch_reduction = s.hardware.nvswitch_reduction;
    for (int r = 0; r < dp; ++r) {
      g.push_back(worker_of(stage, r));
      layout.node_of_member.push_back(w.workers[g.back()].node);
    }
    const auto kind = tr.zero_stage >= 1 ? Kind::ReduceScatter : Kind::AllReduce;
    if (dp > 1 && dp_algorithm != collectives::Algorithm::Auto && !collectives::supports(kind, dp_algorithm, layout))
      throw ScenarioError("/network/collective_algorithm",
                          std::string("\"") + collectives::algorithm_name(dp_algorithm) + "\" cannot run the " +
                              collectives::kind_name(kind) + " of the " + std::to_string(dp) +
                              " data-parallel ranks (halving-doubling needs a power of two, hierarchical several "
                              "ranks per node on several nodes, in-switch one node with an NVLS switch)");
    dp_group[stage] = static_cast<int>(w.groups.size());
    w.groups.push_back(g);
  }

  const MoeExchanges exchanges = add_moe_exchanges(s, plan.moe, stage_of_layer, worker_of, layout, w);

  // Tied embeddings with pp > 1: the first and last stage of each replica all-reduce the embedding gradient
  // after the pipeline (Megatron's _allreduce_embedding_grads).
  std::vector<int> tied_spec(dp, -1);
  if (s.model.tied_embeddings && pp > 1)
    for (int r = 0; r < dp; ++r) {
      tied_spec[r] = static_cast<int>(w.collectives.size());
      w.collectives.push_back({"tied embedding grad", static_cast<int>(w.groups.size()), Kind::AllReduce,
                               double(s.model.vocab) * s.model.hidden / t * grad_bytes_per_param, TimeCategory::PpComm,
                               collectives::Algorithm::Auto, {}});
      w.groups.push_back({worker_of(0, r), worker_of(pp - 1, r)});
    }

  // Optimizer step cost per stage: Adam reads/writes fp32 master, m, v and gradients, writes the weights
  // (about 16 + 12 + e bytes per parameter), over the dp shard with the distributed optimizer.
  for (int stage = 0; stage < pp; ++stage) {
    StagePlan sp;
    sp.stage = stage;
    double set_bytes = 0;  // activations of the stage's largest (micro-batch, chunk) set
    std::vector<double> local_params(v);
    std::vector<ChunkParams> parts(v);
    for (int c = 0; c < v; ++c) {
      const int j = schedule.model_chunk(pp, stage, c);
      parts[c] = chunk_params(s, j, chunks, first_layer_of[j], layers_of[j]);
      local_params[c] = parts[c].total();
      sp.layers += layers_of[j];
      set_bytes = std::max(set_bytes, chunk_activation_bytes(s, first_layer_of[j], layers_of[j], tr.recompute));
      sp.params += local_params[c];
    }
    const auto order = schedule.stage_order({pp, stage, m});
    sp.max_in_flight = strategy::max_in_flight(order, schedule.offloaded_chunk());
    sp.memory = stage_memory(s, sp.params, set_bytes, sp.max_in_flight);
    plan.stages.push_back(sp);

    ComputeCost opt{"optimizer", 0, {}, 0};
    const double shard = sp.params / (tr.zero_stage >= 1 ? dp : 1);
    opt.duration = opt.by_category[static_cast<int>(TimeCategory::Optimizer)] =
        cm.memory_time(shard * (28 + shape.bytes_per_element));
    const int opt_cost = static_cast<int>(w.costs.size());
    w.costs.push_back(opt);

    // Gradient buckets per local chunk: dense parameters over the dp group; routed experts over the dp/ep
    // replicas that hold the same experts (buckets of ep rank a in expert_buckets[a]). With per-layer gradients
    // (FlowMoE) each layer's gradients are chunks of S_p bytes that yield to all-to-alls (layer_buckets,
    // layer_expert_buckets; the output layer's as layer number `layers`, final after the head's backward; with
    // tied embeddings it is the embedding's), and a model chunk's own buckets hold only its embedding.
    std::vector<std::vector<int>> buckets(v);
    std::vector<std::vector<std::vector<int>>> expert_buckets(ep, std::vector<std::vector<int>>(v));
    std::map<int, std::vector<int>> layer_buckets;                        // model layer -> dense chunks
    std::vector<std::map<int, std::vector<int>>> layer_expert_buckets(ep);  // [ep rank] model layer -> chunks
    auto add_buckets = [&](std::vector<int>& list, double params, int group, bool chunked) {
      const double bytes = params * grad_bytes_per_param;
      const double size = chunked ? layout.gradient_chunk_bytes : tr.grad_bucket_bytes;
      const int n = std::max(1, static_cast<int>(std::ceil(bytes / size)));
      for (int k = 0; k < n; ++k) {
        list.push_back(static_cast<int>(w.collectives.size()));
        w.collectives.push_back({chunked ? "dp grad chunk" : "dp grad bucket", group,
                                 tr.zero_stage >= 1 ? Kind::ReduceScatter : Kind::AllReduce, bytes / n,
                                 TimeCategory::DpComm, dp_algorithm, {}, chunked});
      }
    };
    // The gradients of local chunk c by when they are final: `layer` -1 after the chunk's last backward, else
    // after that model layer's backward (per-layer gradients).
    struct GradientPart {
      ChunkParams params;
      int layer = -1;
    };
    auto gradient_parts = [&](int c) {
      const int j = schedule.model_chunk(pp, stage, c);
      if (!per_layer_grads) return std::vector<GradientPart>{{parts[c], -1}};
      std::vector<GradientPart> out = {{embedding_part(s, j), -1}};
      for (int l = first_layer_of[j]; l < first_layer_of[j] + layers_of[j]; ++l) out.push_back({layer_part(s, l), l});
      out.push_back({head_part(s, j, chunks), s.model.layers});
      return out;
    };
    if (dp / ep > 1)
      for (int a = 0; a < ep; ++a) {
        std::vector<int> g;
        for (int r = a; r < dp; r += ep) g.push_back(worker_of(stage, r));
        const int group = static_cast<int>(w.groups.size());
        w.groups.push_back(g);
        for (int c = 0; c < v; ++c)
          for (const auto& part : gradient_parts(c))
            if (part.params.experts > 0)
              add_buckets(part.layer < 0 ? expert_buckets[a][c] : layer_expert_buckets[a][part.layer],
                          part.params.experts, group, part.layer >= 0);
      }
    int ag_spec = -1;
    std::vector<int> zero3_gather(v, -1);
    if (dp > 1) {
      for (int c = 0; c < v; ++c)
        for (const auto& part : gradient_parts(c))
          if (part.params.dense > 0)
            add_buckets(part.layer < 0 ? buckets[c] : layer_buckets[part.layer], part.params.dense, dp_group[stage],
                        part.layer >= 0);
      if (tr.zero_stage == 3)  // parameters stay sharded: gathered before every block that uses them
        for (int c = 0; c < v; ++c) {
          zero3_gather[c] = static_cast<int>(w.collectives.size());
          w.collectives.push_back({"zero-3 param all-gather", dp_group[stage], Kind::AllGather,
                                   local_params[c] * shape.bytes_per_element, TimeCategory::DpComm, dp_algorithm, {}});
        }
      if (tr.zero_stage == 1 || tr.zero_stage == 2) {
        ag_spec = static_cast<int>(w.collectives.size());
        w.collectives.push_back({"dp param all-gather", dp_group[stage], Kind::AllGather,
                                 sp.params * shape.bytes_per_element, TimeCategory::DpComm, dp_algorithm, {}});
      }
    }

    for (int r = 0; r < dp; ++r) {
      Worker& wk = w.workers[worker_of(stage, r)];
      std::vector<int> started;
      auto start = [&](int b) {
        wk.ops.push_back(start_collective(b));
        started.push_back(b);
      };
      PipelineWiring wiring{pp,
                            owner,
                            &passes[r % ep],
                            gathers ? act_bytes / t : act_bytes,
                            [&](int st) { return worker_of(st, r); },
                            offload_cost,
                            [&](int key) -> const std::vector<int>& { return exchanges.of(stage, r, key); }};
      for (int it = 0; it < tr.iterations; ++it) {
        append_pipeline_ops(
            wk.ops, stage, order, schedule, wiring,
            [&](int c) {
              if (!tr.overlap_grad_reduce) return;
              for (int b : buckets[c]) start(b);
              for (int b : expert_buckets[r % ep][c]) start(b);
            },
            [&](int c) {
              if (zero3_gather[c] < 0) return;
              wk.ops.push_back(start_collective(zero3_gather[c]));
              wk.ops.push_back(wait_collective(zero3_gather[c]));
            },
            [&](int layer) {
              for (int b : layer_buckets[layer]) start(b);
              for (int b : layer_expert_buckets[r % ep][layer]) start(b);
            });
        if (!tr.overlap_grad_reduce)
          for (int c = 0; c < v; ++c) {
            for (int b : buckets[c]) start(b);
            for (int b : expert_buckets[r % ep][c]) start(b);
          }
        for (int b : started) wk.ops.push_back(wait_collective(b));
        started.clear();
        if (tied_spec[r] >= 0 && (stage == 0 || stage == pp - 1)) {
          wk.ops.push_back(start_collective(tied_spec[r]));
          wk.ops.push_back(wait_collective(tied_spec[r]));
        }
        wk.ops.push_back(compute(opt_cost));
        if (ag_spec >= 0) {
          wk.ops.push_back(start_collective(ag_spec));
          wk.ops.push_back(wait_collective(ag_spec));
        }
        wk.ops.push_back(end_iteration(it));
      }
    }
  }
  return plan;
}

}  // namespace llmsim::workload
