#pragma once
// Token-to-expert routing models of MoE layers (the scenario's `routing` section, `llmsim list routing`).
// A model draws, for a sample of tokens of one MoE layer, the top-k distinct experts of each token. Draws come
// from generators seeded by (scenario seed, layer, source rank), so every strategy in a comparison sees the
// same routing (DESIGN: determinism).
//   uniform       every expert equally likely (the independent routing of load-balanced training)
//   zipf          expert popularity ~ 1/rank^skew, the ranking a per-layer random permutation
//   coactivation  expert frequencies f and a pairwise co-activation matrix C: the first expert of a token is
//                 drawn by f, each next one by f_j * (eps + sum_{i chosen} C_ij) (eps = 1e-3); f and C come from
//                 a JSON file {"frequency": [E], "coactivation": [[E x E]]} or from a synthetic block model
//                 (experts in `groups` equal groups after a per-layer random permutation, C = 1 inside a group
//                 and `cross` between groups, f ~ zipf(skew)) — docs/moe.md.
#include <cstdint>
#include <memory>
#include <random>
#include <vector>

#include "llmsim/scenario/scenario.hpp"
#include "llmsim/strategy/registry.hpp"

namespace llmsim::moe {

/// Expert choices of `tokens` tokens: token t chose experts[t*k .. t*k+k-1], all distinct, in draw order.
struct RoutingSample {
  int tokens = 0, k = 0;
  std::vector<int> experts;
};

class RoutingModel {
 public:
  virtual ~RoutingModel() = default;
  /// `tokens` tokens of MoE layer `layer` (index among the model's MoE layers) choosing top_k experts each.
  virtual RoutingSample route(int layer, int tokens, std::mt19937_64& rng) const = 0;
};

using RoutingRegistry = strategy::Registry<RoutingModel>;

/// The scenario's routing model. Throws ScenarioError (path /routing/...) for parameters that do not fit the
/// model (e.g. a co-activation file with the wrong number of experts).
std::unique_ptr<RoutingModel> make_routing(const scenario::Scenario& s);

/// A generator for (seed, layer, source, purpose): independent streams that do not depend on any strategy.
std::mt19937_64 routing_rng(unsigned long long seed, int layer, int source, int purpose);

/// A random permutation of 0..n-1 for MoE layer `layer` (which expert is hot, which experts form a group).
std::vector<int> layer_permutation(unsigned long long seed, int layer, int n);

/// Inclusive prefix sums.
std::vector<double> cumulative_of(const std::vector<double>& weights);

/// Draws k distinct indices with probabilities proportional to `cumulative` (inclusive prefix sums of the
/// weights, last element > 0), each pick among the indices not yet drawn: by rejection of repeats, and past 4
/// repeats in a row directly from the remaining weights (the same distribution); appends them to `out`. Needs
/// k <= number of positive weights.
void draw_distinct(const std::vector<double>& cumulative, int k, std::mt19937_64& rng, std::vector<int>& out);

}  // namespace llmsim::moe
