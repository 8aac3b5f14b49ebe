#include "llmsim/workload/gradient_sync.hpp"

#include <algorithm>
#include <cmath>

#include "llmsim/model/transformer.hpp"

namespace llmsim::workload {
namespace {

using collectives::Kind;

/// Gradients in buckets (or per-layer chunks) reduced over the stage's dp * cp replicas with `kind`.
class BucketedSync : public GradientSync {
 public:
  BucketedSync(const scenario::Scenario& s, const strategy::MoeLayout& layout, Kind kind)
      : s_(s), chunk_bytes_(layout.gradient_chunk_bytes), kind_(kind),
        algorithm_(collectives::algorithm_from_name(s.network.collective_algorithm)),
        bytes_per_element_(model::LayerShape::from(s).bytes_per_element()),
        grad_bytes_per_param_(model::gradient_bytes_per_param(model::LayerShape::from(s).precision,
                                                               s.training.grad_reduce_in_fp32)) {}

  GradientSyncOps plan(const StageGradients& g, Workload& w) const override {
    const int ep = s_.parallelism.ep, v = static_cast<int>(g.parts.size());
    GradientSyncOps ops;
    ops.overlap = s_.training.overlap_grad_reduce;
    ops.at_chunk_end.assign(ep, std::vector<std::vector<SyncStep>>(v));
    ops.at_layer_end.assign(ep, {});
    Buckets experts(g.expert_members.size(), v), dense(1, v);  // experts' collectives first, as in the spec order
    for (size_t a = 0; a < g.expert_members.size(); ++a) {
      const int group = static_cast<int>(w.groups.size());
      if (g.expert_group_represents > 0) w.represents[group] = g.expert_group_represents;
      w.groups.push_back(g.expert_members[a]);
      add_parts(g, group, &ChunkParams::experts, experts, a, w);
    }
    if (s_.parallelism.dp_cp() > 1) add_parts(g, g.dp_group, &ChunkParams::dense, dense, 0, w);
    for (int a = 0; a < ep; ++a) {  // a replica of ep rank a starts the dense steps, then its experts'
      const bool own = a < static_cast<int>(experts.chunk.size());
      for (int c = 0; c < v; ++c) {
        ops.at_chunk_end[a][c] = dense.chunk[0][c];
        if (own) append(ops.at_chunk_end[a][c], experts.chunk[a][c]);
      }
      for (const auto& [layer, steps] : dense.layer[0]) append(ops.at_layer_end[a][layer], steps);
      if (own)
        for (const auto& [layer, steps] : experts.layer[a]) append(ops.at_layer_end[a][layer], steps);
    }
    if (s_.parallelism.dp_cp() > 1) add_gathers(g, w, ops);
    return ops;
  }
  MemoryBreakdown state_memory(double params) const override { return workload::state_memory(s_, params); }

 protected:
  /// ZeRO's parameter all-gathers.
  virtual void add_gathers(const StageGradients&, Workload&, GradientSyncOps&) const {}
  int gather(const std::string& name, int group, double params, Workload& w) const {
    w.collectives.push_back({name, group, Kind::AllGather, params * bytes_per_element_, TimeCategory::DpComm,
                             algorithm_, {}});
    return static_cast<int>(w.collectives.size()) - 1;
  }
  double weight_bytes(double params) const { return params * bytes_per_element_; }
  const scenario::Scenario& s_;

 private:
  /// Steps by [owner][local chunk] and [owner] model layer.
  struct Buckets {
    Buckets(size_t owners, int chunks)
        : chunk(owners, std::vector<std::vector<SyncStep>>(chunks)), layer(owners) {}
    std::vector<std::vector<std::vector<SyncStep>>> chunk;
    std::vector<std::map<int, std::vector<SyncStep>>> layer;
  };
  static void append(std::vector<SyncStep>& to, const std::vector<SyncStep>& steps) {
    to.insert(to.end(), steps.begin(), steps.end());
  }

  /// The `which` parameters (dense or experts) of every gradient part, as buckets of owner `o` on `group`.
  void add_parts(const StageGradients& g, int group, double ChunkParams::*which, Buckets& out, size_t o,
                 Workload& w) const {
    for (size_t c = 0; c < g.parts.size(); ++c)
      for (const auto& part : g.parts[c])
        if (part.params.*which > 0)
          add_buckets(part.layer < 0 ? out.chunk[o][c] : out.layer[o][part.layer], part.params.*which, group,
                      part.layer >= 0, w);
  }
  void add_buckets(std::vector<SyncStep>& list, double params, int group, bool chunked, Workload& w) const {
    const double bytes = params * grad_bytes_per_param_;
    const bool flowmoe = chunked && chunk_bytes_ > 0;  // S_p-byte chunks yielding to all-to-alls
    const double size = flowmoe ? chunk_bytes_ : s_.training.grad_bucket_bytes;
    const int n = std::max(1, static_cast<int>(std::ceil(bytes / size)));
    for (int k = 0; k < n; ++k) {
      list.push_back({-1, static_cast<int>(w.collectives.size())});
      w.collectives.push_back({flowmoe ? "dp grad chunk" : chunked ? "dp layer grad bucket" : "dp grad bucket", group,
                               kind_, bytes / n, TimeCategory::DpComm, algorithm_, {}, flowmoe});
    }
  }

  double chunk_bytes_;
  Kind kind_;
  collectives::Algorithm algorithm_;
  double bytes_per_element_, grad_bytes_per_param_;
};

/// zero_stage 0: all-reduced gradients, every GPU steps the whole optimizer.
class AllReduceSync final : public BucketedSync {
 public:
  AllReduceSync(const scenario::Scenario& s, const strategy::MoeLayout& layout)
      : BucketedSync(s, layout, Kind::AllReduce) {}
  double optimizer_params(double params) const override { return params; }
};

/// ZeRO stages 1-3: reduce-scattered gradients, each GPU steps its 1/(dp*cp) shard.
class ZeroSync final : public BucketedSync {
 public:
  ZeroSync(const scenario::Scenario& s, const strategy::MoeLayout& layout)
      : BucketedSync(s, layout, Kind::ReduceScatter) {}
  double optimizer_params(double params) const override { return params / s_.parallelism.dp_cp(); }

 private:
  void add_gathers(const StageGradients& g, Workload& w, GradientSyncOps& ops) const override {
    if (s_.training.zero_stage != 3) {
      ops.after_optimizer.push_back({-1, gather("dp param all-gather", g.dp_group, g.params, w)});
      return;
    }
    for (const auto& [layer, params] : layer_units(g))  // parameters stay sharded: gathered per layer and pass
      ops.layer_gather[layer] = gather("zero-3 layer all-gather", g.dp_group, params, w);
  }
  double gathered_bytes(const StageGradients& g) const override {
    if (s_.training.zero_stage != 3) return 0;
    std::vector<double> units;
    for (const auto& [layer, params] : layer_units(g)) units.push_back(weight_bytes(params));
    std::sort(units.rbegin(), units.rend());
    return (units.empty() ? 0 : units[0]) + (units.size() > 1 ? units[1] : 0);
  }
  /// Parameters gathered together: each model layer, a chunk's embedding with its first layer and its head with
  /// its last (the per-layer gradient parts, model_parts.hpp).
  static std::map<int, double> layer_units(const StageGradients& g) {
    std::map<int, double> units;
    for (const auto& parts : g.parts) {  // per chunk: embedding (layer -1), its layers, head (transformer_layers())
      if (parts.size() < 3) continue;
      const int first = parts[1].layer, last = parts[parts.size() - 2].layer;
      for (const auto& part : parts) units[part.layer < 0 ? first : std::min(part.layer, last)] += part.params.total();
    }
    return units;
  }
};

}  // namespace

std::unique_ptr<GradientSync> make_gradient_sync(const scenario::Scenario& s, const strategy::MoeLayout& layout) {
  if (s.training.zero_stage >= 1) return std::make_unique<ZeroSync>(s, layout);
  return std::make_unique<AllReduceSync>(s, layout);
}

}  // namespace llmsim::workload
