// Co-activation routing (docs/moe.md): expert frequencies f and a pairwise co-activation matrix C. A token's
// first expert is drawn with probability ~ f_j, each next one with probability ~ f_j * (eps + sum over the
// experts it already chose of C_ij), eps = 1e-3, without repeats. f and C come from a file
// {"frequency": [E numbers >= 0], "coactivation": [[E x E numbers >= 0]]} (the same for every MoE layer) or
// from the synthetic block model: experts fall into `groups` equal groups after a per-layer random
// permutation, C = 1 inside a group and `cross` between groups, f ~ 1/rank^skew over another permutation.
// File values are scaled to a largest entry of 1 (only ratios matter); an all-zero C means no co-activation.
#include <algorithm>
#include <cmath>
#include <filesystem>
#include <optional>

#include "llmsim/moe/routing.hpp"
#include "llmsim/scenario/loader.hpp"
#include "llmsim/util/error.hpp"
#include "llmsim/util/limits.hpp"

namespace llmsim::moe {
namespace {

constexpr double kEps = 1e-3;

struct CoactivationTable {
  std::vector<double> frequency;    ///< [E]
  std::vector<double> coactivation; ///< [E x E], row-major
};

CoactivationTable read_table(const std::string& file, int experts) {
  const std::string path = "/routing/file";
  nlohmann::json j;
  try {
    j = scenario::read_json_file(file);
  } catch (const ScenarioError& e) {
    throw ScenarioError(path, e.what());
  }
  auto numbers = [&](const nlohmann::json& v, const std::string& where) {
    if (!v.is_array() || static_cast<int>(v.size()) != experts)
      throw ScenarioError(path, file + ": " + where + " must be an array of " + std::to_string(experts) +
                                    " numbers (one per expert of model.moe.experts)");
    std::vector<double> out;
    for (const auto& x : v) {
      if (!x.is_number() || x.get<double>() < 0 || !std::isfinite(x.get<double>()))
        throw ScenarioError(path, file + ": " + where + " holds " + x.dump() + "; expected numbers >= 0");
      out.push_back(x.get<double>());
    }
    return out;
  };
  if (!j.is_object() || !j.contains("frequency") || !j.contains("coactivation"))
    throw ScenarioError(path, file + ": expected an object with \"frequency\" and \"coactivation\"");
  CoactivationTable t;
  t.frequency = numbers(j["frequency"], "\"frequency\"");
  if (!j["coactivation"].is_array() || static_cast<int>(j["coactivation"].size()) != experts)
    throw ScenarioError(path, file + ": \"coactivation\" must be " + std::to_string(experts) + " rows");
  for (int i = 0; i < experts; ++i) {
    const auto row = numbers(j["coactivation"][i], "\"coactivation\" row " + std::to_string(i));
    t.coactivation.insert(t.coactivation.end(), row.begin(), row.end());
  }
  // Only ratios matter: scale both to a largest entry of 1 so that sums cannot overflow.
  for (auto* v : {&t.frequency, &t.coactivation}) {
    const double top = *std::max_element(v->begin(), v->end());
    if (top > 0)
      for (double& x : *v) x /= top;
  }
  return t;
}

class Coactivation final : public RoutingModel {
 public:
  Coactivation(unsigned long long seed, int experts, int k, std::optional<CoactivationTable> table, int groups,
               double cross, double skew)
      : seed_(seed), experts_(experts), k_(k), table_(std::move(table)), groups_(groups), cross_(cross), skew_(skew) {}

  RoutingSample route(int layer, int tokens, std::mt19937_64& rng) const override {
    const CoactivationTable t = table_ ? *table_ : synthetic(layer);
    const int n = experts_;
    const auto first = cumulative_of(t.frequency);
    RoutingSample out{tokens, k_, {}};
    out.experts.reserve(static_cast<size_t>(tokens) * k_);
    std::vector<double> score(n), w(n);
    std::uniform_real_distribution<double> u(0.0, 1.0);
    for (int tok = 0; tok < tokens; ++tok) {
      const size_t begin = out.experts.size();
      draw_distinct(first, 1, rng, out.experts);
      std::fill(score.begin(), score.end(), kEps);
      for (int step = 1; step < k_; ++step) {
        const int last = out.experts.back();
        double total = 0;
        for (int j = 0; j < n; ++j) {
          score[j] += t.coactivation[static_cast<size_t>(last) * n + j];
          w[j] = t.frequency[j] * score[j];
        }
        for (size_t c = begin; c < out.experts.size(); ++c) w[out.experts[c]] = 0;
        for (double x : w) total += x;
        const double pick = u(rng) * total;
        int chosen = -1;  // the first expert whose running sum passes `pick`; rounding falls back to the last one
        double running = 0;
        for (int j = 0; j < n; ++j) {
          if (w[j] <= 0) continue;
          chosen = j;
          running += w[j];
          if (running > pick) break;
        }
        out.experts.push_back(chosen);
      }
    }
    return out;
  }

 private:
  CoactivationTable synthetic(int layer) const {
    const int n = experts_;
    CoactivationTable t;
    const auto order = layer_permutation(seed_, layer, n);
    std::vector<int> group(n);
    for (int p = 0; p < n; ++p) group[order[p]] = static_cast<int>(static_cast<long long>(p) * groups_ / n);
    const auto rank = layer_permutation(seed_ + 1, layer, n);
    t.frequency.resize(n);
    for (int r = 0; r < n; ++r) t.frequency[rank[r]] = std::pow(r + 1.0, -skew_);
    t.coactivation.resize(static_cast<size_t>(n) * n);
    for (int i = 0; i < n; ++i)
      for (int j = 0; j < n; ++j) t.coactivation[static_cast<size_t>(i) * n + j] = group[i] == group[j] ? 1.0 : cross_;
    return t;
  }

  unsigned long long seed_;
  int experts_, k_;
  std::optional<CoactivationTable> table_;
  int groups_;
  double cross_, skew_;
};

const scenario::FieldList kParams = {
    scenario::Field::string("file", "JSON file with \"frequency\" [E] and \"coactivation\" [E][E] (relative to the "
                                    "scenario); empty = the synthetic block model")
        .with_default(""),
    scenario::Field::integer("groups", "synthetic model: groups of co-activated experts").at_least(1).with_default(16),
    scenario::Field::number("cross", "", "synthetic model: co-activation between groups (1 inside a group)").at_least(0)
        .at_most(1).with_default(0.1),
    scenario::Field::number("skew", "", "synthetic model: Zipf exponent of expert frequencies").at_least(0).at_most(4)
        .with_default(0.0),
};

LLMSIM_REGISTER(RoutingModel, "coactivation",
                "expert frequencies + pairwise co-activation (file or synthetic groups): tokens pick co-activated "
                "experts together",
                kParams, [](const scenario::Params& p, const scenario::Scenario& s) {
                  const int experts = s.model.moe.experts;
                  if (experts > limits::kMaxPairwiseExperts)
                    throw ScenarioError("/model/moe/experts", std::to_string(experts) + " experts: co-activation routing "
                                        "draws over expert pairs, at most " +
                                        std::to_string(limits::kMaxPairwiseExperts) + " experts (or another routing)");
                  std::optional<CoactivationTable> table;
                  const std::string file = p.text("file");
                  if (!file.empty()) {
                    const auto path = std::filesystem::path(file).is_absolute()
                                          ? std::filesystem::path(file)
                                          : std::filesystem::path(s.source_dir) / file;
                    table = read_table(path.string(), experts);
                    int positive = 0;
                    for (double f : table->frequency) positive += f > 0;
                    if (positive < s.model.moe.top_k)
                      throw ScenarioError("/routing/file", file + ": only " + std::to_string(positive) +
                                                               " experts have a frequency > 0, fewer than top_k = " +
                                                               std::to_string(s.model.moe.top_k));
                  }
                  const int groups = p.integer("groups");
                  if (!table && groups > experts)
                    throw ScenarioError("/routing/groups", std::to_string(groups) + " groups for " +
                                                               std::to_string(experts) + " experts (at most one group per expert)");
                  return std::make_unique<Coactivation>(s.seed, experts, s.model.moe.top_k, std::move(table), groups,
                                                        p.number("cross"), p.number("skew"));
                });

}  // namespace
}  // namespace llmsim::moe
