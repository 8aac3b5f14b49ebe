// mecefo (strategy/fault_tolerance.hpp), its costs in strategy/mecefo_costs.hpp.
#include "llmsim/model/transformer.hpp"
#include "llmsim/strategy/mecefo_costs.hpp"

#include "coverage.hpp"
#include "llmsim/util/error.hpp"

namespace llmsim::strategy {

MeCeFoCosts mecefo_costs(const scenario::Scenario& s, int rank, int refresh_steps) {
  using model::total_flops;
  const auto x = model::LayerShape::from(s);
  auto all = [](const std::vector<model::Kernel>& k) {
    return total_flops(k) + total_flops(model::backward_input(k)) + total_flops(model::backward_weight(k));
  };
  const auto att = model::attention_forward(x), ffn = model::mlp_forward(x), head = model::head_forward(x);
  const double L = s.model.layers, T = x.b * x.s, r = rank, f = x.f / x.t;
  std::vector<std::pair<double, double>> matrices = {{x.h, f}, {f, x.h}};  // d_in x d_out per tp rank
  if (x.swiglu) matrices.push_back({x.h, f});
  double lowrank = 0, refresh = 0, projections = 0;
  for (const auto& [in, out] : matrices) {
    lowrank += 2 * T * r * (in + out) + 2 * r * in * out;
    refresh += 4 * in * out * r / refresh_steps;
    projections += 4 * out * r;
  }
  const double normal = L * (all(att) + all(ffn)) + all(head);
  const double extra = L * total_flops(att) + L * (2 * total_flops(ffn) + total_flops(model::backward_input(ffn)) + lowrank) +
                       all(head);
  const double m = s.training.micro_batches_per_pipeline(s.parallelism.dp);
  MeCeFoCosts c;
  c.normal_step = m * normal;
  c.extra_step = m * extra + L * refresh;
  c.extra_memory = L * T * x.h * x.bytes_per_element() + L * projections;
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
