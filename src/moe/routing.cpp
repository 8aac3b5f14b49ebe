#include "llmsim/moe/routing.hpp"
#include "llmsim/strategy/family.hpp"

#include <algorithm>
#include <numeric>


namespace llmsim::moe {

std::unique_ptr<RoutingModel> make_routing(const scenario::Scenario& s) {
  return RoutingRegistry::instance().make(s.routing, s, "/routing", "routing model");
}

std::mt19937_64 routing_rng(unsigned long long seed, int layer, int source, int purpose) {
  std::seed_seq seq{static_cast<uint32_t>(seed), static_cast<uint32_t>(seed >> 32), static_cast<uint32_t>(layer),
                    static_cast<uint32_t>(source), static_cast<uint32_t>(purpose)};
  return std::mt19937_64(seq);
}

std::vector<int> layer_permutation(unsigned long long seed, int layer, int n) {
  std::vector<int> p(n);
  std::iota(p.begin(), p.end(), 0);
  auto rng = routing_rng(seed, layer, -1, 1);
  for (int i = n - 1; i > 0; --i) std::swap(p[i], p[std::uniform_int_distribution<int>(0, i)(rng)]);
  return p;
}

std::vector<double> cumulative_of(const std::vector<double>& weights) {
  std::vector<double> c(weights.size());
  std::partial_sum(weights.begin(), weights.end(), c.begin());
  return c;
}

namespace {
/// One expert drawn by weight among those not in out[first..]: the distribution that rejecting repeats gives. A
/// point of the remaining weight is carried past the chosen experts' intervals, then found by bisection.
int draw_from_rest(const std::vector<double>& cumulative, const std::vector<int>& out, size_t first,
                   std::mt19937_64& rng) {
  std::vector<int> holes(out.begin() + static_cast<std::ptrdiff_t>(first), out.end());
  std::sort(holes.begin(), holes.end());
  const auto start = [&](int e) { return e > 0 ? cumulative[e - 1] : 0.0; };
  double rest = cumulative.back();
  for (int h : holes) rest -= cumulative[h] - start(h);
  double y = std::uniform_real_distribution<double>(0.0, rest)(rng);
  for (int h : holes)
    if (y >= start(h)) y += cumulative[h] - start(h);
  const int n = static_cast<int>(cumulative.size());
  int e = static_cast<int>(std::upper_bound(cumulative.begin(), cumulative.end(), y) - cumulative.begin());
  if (e >= n) e = n - 1;  // rounding at the top: the nearest expert not chosen, downwards
  while (std::binary_search(holes.begin(), holes.end(), e)) e = (e + n - 1) % n;
  return e;
}
}  // namespace

void draw_distinct(const std::vector<double>& cumulative, int k, std::mt19937_64& rng, std::vector<int>& out) {
  std::uniform_real_distribution<double> u(0.0, cumulative.back());
  const size_t first = out.size();
  int repeats = 0;  // in a row: past a few, the rest are drawn directly (a skewed draw's k-th expert is rare)
  while (static_cast<int>(out.size() - first) < k) {
    if (repeats >= 4) {
      out.push_back(draw_from_rest(cumulative, out, first, rng));
      repeats = 0;
      continue;
    }
    const int e = static_cast<int>(std::upper_bound(cumulative.begin(), cumulative.end(), u(rng)) - cumulative.begin());
    if (e >= static_cast<int>(cumulative.size())) continue;
    if (std::find(out.begin() + first, out.end(), e) == out.end())
      out.push_back(e), repeats = 0;
    else
      ++repeats;
  }
}

LLMSIM_FAMILY(RoutingModel, "", "routing", "uniform", "MoE token-to-expert routing model", 60,
              {"routing", "routing (MoE token-to-expert models)", 1},
              [](const scenario::Scenario& s) { make_routing(s); });

}  // namespace llmsim::moe
