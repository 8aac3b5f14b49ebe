// Zipf-skewed routing: in each MoE layer the expert of popularity rank r (a per-layer random permutation) is
// chosen with weight 1/r^skew; a token takes top_k distinct experts by these weights.
#include <cmath>

#include "llmsim/moe/routing.hpp"

namespace llmsim::moe {
namespace {

class Zipf final : public RoutingModel {
 public:
  Zipf(unsigned long long seed, int experts, int k, double skew) : seed_(seed), experts_(experts), k_(k), skew_(skew) {}
  RoutingSample route(int layer, int tokens, std::mt19937_64& rng) const override {
    const auto rank = layer_permutation(seed_, layer, experts_);
    std::vector<double> w(experts_);
    for (int r = 0; r < experts_; ++r) w[rank[r]] = std::pow(r + 1.0, -skew_);
    const auto cumulative = cumulative_of(w);
    RoutingSample out{tokens, k_, {}};
    out.experts.reserve(static_cast<size_t>(tokens) * k_);
    for (int t = 0; t < tokens; ++t) draw_distinct(cumulative, k_, rng, out.experts);
    return out;
  }

 private:
  unsigned long long seed_;
  int experts_, k_;
  double skew_;
};

const scenario::FieldList kParams = {
    scenario::Field::number("skew", "", "Zipf exponent s of expert popularity (0 = uniform)").at_least(0).at_most(4)
        .with_default(1.0)};

LLMSIM_REGISTER(RoutingModel, "zipf", "Zipf-skewed expert popularity, hot experts permuted per layer", kParams,
                [](const scenario::Params& p, const scenario::Scenario& s) {
                  return std::make_unique<Zipf>(s.seed, s.model.moe.experts, s.model.moe.top_k, p.number("skew"));
                });

}  // namespace
}  // namespace llmsim::moe
