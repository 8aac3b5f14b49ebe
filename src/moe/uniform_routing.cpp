// Uniform routing: each token picks top_k distinct experts, all equally likely.
#include <numeric>

#include "llmsim/moe/routing.hpp"

namespace llmsim::moe {
namespace {

class Uniform final : public RoutingModel {
 public:
  Uniform(int experts, int k) : k_(k), cumulative_(experts) { std::iota(cumulative_.begin(), cumulative_.end(), 1.0); }
  RoutingSample route(int, int tokens, std::mt19937_64& rng) const override {
    RoutingSample r{tokens, k_, {}};
    r.experts.reserve(static_cast<size_t>(tokens) * k_);
    for (int t = 0; t < tokens; ++t) draw_distinct(cumulative_, k_, rng, r.experts);
    return r;
  }

 private:
  int k_;
  std::vector<double> cumulative_;
};

LLMSIM_REGISTER(RoutingModel, "uniform", "every expert equally likely (independent routing)", {},
                [](const scenario::Params&, const scenario::Scenario& s) {
                  return std::make_unique<Uniform>(s.model.moe.experts, s.model.moe.top_k);
                });

}  // namespace
}  // namespace llmsim::moe
