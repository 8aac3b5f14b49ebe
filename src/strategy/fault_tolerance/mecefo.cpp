// mecefo (strategy/fault_tolerance.hpp), its costs in strategy/mecefo_costs.hpp.
#include "llmsim/model/moe.hpp"
#include "llmsim/model/transformer.hpp"
#include "llmsim/strategy/mecefo_costs.hpp"

#include "coverage.hpp"
#include "llmsim/util/error.hpp"

namespace llmsim::strategy {

namespace {
/// One layer's FFN as MeCeFO sees it: its forward kernels and its weight matrices (d_in x d_out per tp rank), each
/// with the tokens it multiplies and how many copies of it this GPU holds.
struct FfnMatrices {
  std::vector<model::Kernel> forward;
  struct Matrix {
    double in, out, tokens, copies;
  };
  std::vector<Matrix> matrices;
};

void add_ffn(FfnMatrices& f, const model::LayerShape& x, double inner, double tokens, double copies) {
  f.matrices.push_back({x.h, inner, tokens, copies});
  f.matrices.push_back({inner, x.h, tokens, copies});
  if (x.swiglu) f.matrices.push_back({x.h, inner, tokens, copies});
}

/// The dense FFN, or a MoE layer's: router, shared experts and permutation, the routed experts on the layer's
/// T top_k token copies, the combine (model/moe.hpp); its local experts (experts / ep) hold the matrices.
FfnMatrices ffn_of(const scenario::Scenario& s, const model::LayerShape& x, bool moe_layer) {
  const double T = x.b * x.s;
  FfnMatrices f;
  if (!moe_layer) {
    f.forward = model::mlp_forward(x);
    add_ffn(f, x, x.f / x.t, T, 1);
    return f;
  }
  const auto& moe = s.model.moe;
  const double routed = T * moe.top_k, inner = double(moe.expert_ffn_hidden) / x.t;
  f.forward = model::concat(model::concat(model::moe_pre_forward(x, moe), model::expert_forward(x, moe, routed)),
                            model::moe_post_forward(x, moe));
  add_ffn(f, x, inner, routed, double(moe.experts) / s.parallelism.ep);  // the tokens spread over the local experts
  if (moe.shared_experts > 0) add_ffn(f, x, inner, T, moe.shared_experts);
  return f;
}
}  // namespace

MeCeFoCosts mecefo_costs(const scenario::Scenario& s, int rank, int refresh_steps) {
  using model::total_flops;
  const auto x = model::LayerShape::from(s);
  auto all = [](const std::vector<model::Kernel>& k) {
    return total_flops(k) + total_flops(model::backward_input(k)) + total_flops(model::backward_weight(k));
  };
  const auto att = model::attention_forward(x), head = model::head_forward(x);
  const double T = x.b * x.s, r = rank;
  double normal = all(head), cheap = all(head), refresh = 0, projections = 0;
  for (int l = 0; l < s.model.layers; ++l) {
    const FfnMatrices f = ffn_of(s, x, s.model.moe.is_moe_layer(l));
    double lowrank = 0;
    for (const auto& m : f.matrices) {
      lowrank += 2 * m.tokens * r * (m.in + m.out) + m.copies * 2 * r * m.in * m.out;
      refresh += m.copies * 4 * m.in * m.out * r / refresh_steps;
      projections += m.copies * 4 * m.out * r;
    }
    normal += all(att) + all(f.forward);
    cheap += total_flops(att) + 2 * total_flops(f.forward) + total_flops(model::backward_input(f.forward)) + lowrank;
  }
  const double m = s.training.micro_batches_per_pipeline(s.parallelism.dp);
  MeCeFoCosts c;
  c.normal_step = m * normal;
  c.covering_step = 2 * m * cheap + refresh;
  c.extra_memory = s.model.layers * T * x.h * x.bytes_per_element() + projections;
  return c;
}

namespace {

class MeCeFo final : public FaultTolerance {
 public:
  MeCeFo(MeCeFoCosts costs, double switch_s) : costs_(costs), switch_(switch_s) {}
  double iteration(const JobCosts& c, const std::set<int>& down) const override {
    if (down.empty()) return c.iteration;
    if (!covered(c, down, Cover::kDataParallelNeighbour)) return -1;
    return c.iteration + (costs_.compute_multiplier() - 1) * (c.worker_forward + c.worker_backward);
  }
  FailureReaction on_failure(const JobCosts&, const std::set<int>&) const override { return {false, false, false, switch_}; }
  double repair_stall(const JobCosts& c, const std::set<int>&) const override {
    return c.node_state_bytes / c.node_bandwidth;
  }
  ModuleNumbers report(const JobCosts& c) const override {
    const double peak = c.worker_memory + costs_.extra_memory;
    return {{"neighbour_compute_multiplier", costs_.compute_multiplier()},
            {"neighbour_peak_memory_bytes", peak},
            {"neighbour_memory_multiplier", peak / c.worker_memory},
            {"degraded_iteration_s", c.nodes > 1 && iteration(c, {0}) > 0 ? std::optional<double>(iteration(c, {0}))
                                                                          : std::nullopt}};
  }

 private:
  MeCeFoCosts costs_;
  double switch_;
};

LLMSIM_REGISTER(FaultTolerance, "mecefo",
                "Neighbor-Do-Both: a data-parallel neighbour also runs the failed node's micro-batches with a cheap "
                "backward (no attention, recomputed FFN, low-rank FFN weight gradients)",
                (scenario::FieldList{
                    scenario::Field::integer("rank", "rank r of the FFN weight-gradient approximation").at_least(1)
                        .with_default(128),
                    scenario::Field::integer("refresh_steps", "tau: steps between SVD refreshes of the projection")
                        .at_least(1)
                        .with_default(200),
                    scenario::Field::number("switch_s", "s", "detection and hand-over to the neighbour")
                        .at_least(0)
                        .with_default(10.0)}),
                [](const scenario::Params& p, const scenario::Scenario& s) {
                  require_other_nodes(s, "mecefo");
                  if (p.integer("rank") > s.model.hidden)
                    throw ScenarioError("/strategies/fault_tolerance/rank",
                                        "the rank of the FFN gradient approximation is at most the hidden size (" +
                                            std::to_string(s.model.hidden) + ")");
                  return std::make_unique<MeCeFo>(
                      mecefo_costs(s, p.integer("rank"), p.integer("refresh_steps")),
                      p.seconds("switch_s"));
                });

}  // namespace
}  // namespace llmsim::strategy
