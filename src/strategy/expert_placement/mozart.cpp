// Mozart expert placement (docs/moe.md): (1) cluster co-activated experts into clusters of `cluster_size`
// — seeds chosen farthest-point style (the most frequent expert first, then each time the expert least
// co-activated with the seeds so far), then clusters grow in turn by the unassigned expert most co-activated
// with their members (co-activation as lift, C_ij * sum(f) / (f_i f_j)); (2) assign the clusters to devices,
// the same number per device, minimising the load of the most loaded device — an integer program
//   min L  s.t.  sum_d x_cd = 1 (each cluster),  sum_c x_cd = K/D (each device),  sum_c f_c x_cd <= L,  x binary
// solved with GLPK (branch and cut from the greedy LPT assignment as incumbent, stopping at a 1% gap or after
// 500 nodes — a deterministic budget; skipped when the greedy assignment is already within 1% of the bound
// max(total/D, largest cluster)).
// A token whose experts share a cluster needs one copy for all of them.
#include <glpk.h>

#include <algorithm>
#include <cmath>
#include <numeric>

#include "llmsim/strategy/expert_placement.hpp"
#include "llmsim/util/error.hpp"
#include "llmsim/util/limits.hpp"

namespace llmsim::strategy {
namespace {

std::vector<std::vector<int>> cluster_experts(const ExpertStats& st, int size) {
  const int E = st.experts, K = E / size;
  // Lift: how much more often i and j are chosen together than independent choices would give (1 = no
  // affinity), so that popular experts are not clustered merely for being popular.
  double pairs = 0;
  for (double f : st.frequency) pairs += f;
  auto sim = [&](int i, int j) {
    const double d = st.frequency[i] * st.frequency[j];
    return d > 0 ? st.coactivation[static_cast<size_t>(i) * E + j] * pairs / d : 0.0;
  };
  std::vector<int> cluster_of(E, -1);
  std::vector<std::vector<int>> clusters;
  // Farthest-point seeds.
  for (int c = 0; c < K; ++c) {
    int best = -1;
    double best_score = 0;
    for (int e = 0; e < E; ++e) {
      if (cluster_of[e] >= 0) continue;
      double closest = 0;  // highest similarity to a seed
      for (const auto& cl : clusters) closest = std::max(closest, sim(e, cl[0]));
      const double score = clusters.empty() ? -st.frequency[e] : closest - 1e-12 * st.frequency[e];
      if (best < 0 || score < best_score) best = e, best_score = score;
    }
    cluster_of[best] = c;
    clusters.push_back({best});
  }
  // Growth in turns.
  for (int round = 1; round < size; ++round)
    for (int c = 0; c < K; ++c) {
      int best = -1;
      double best_affinity = -1;
      for (int e = 0; e < E; ++e) {
        if (cluster_of[e] >= 0) continue;
        double a = 0;
        for (int m : clusters[c]) a += sim(e, m);
        if (a > best_affinity) best = e, best_affinity = a;
      }
      cluster_of[best] = c;
      clusters[c].push_back(best);
    }
  return clusters;
}

constexpr int kNodeLimit = 500;  // branch-and-bound nodes: a deterministic budget (a time limit is not)
constexpr double kGap = 0.01;     // relative gap at which the solver stops

struct SearchState {
  std::vector<double> start;  // the greedy assignment as a solution vector (1-based columns)
  bool offered = false;
};

void on_node(glp_tree* tree, void* info) {
  auto* state = static_cast<SearchState*>(info);
  if (glp_ios_reason(tree) == GLP_IHEUR && !state->offered) {
    glp_ios_heur_sol(tree, state->start.data());
    state->offered = true;
  }
  int active = 0, nodes = 0, total = 0;
  glp_ios_tree_size(tree, &active, &nodes, &total);
  if (total > kNodeLimit) glp_ios_terminate(tree);
}

double max_load(const std::vector<double>& load, const std::vector<int>& device, int devices) {
  std::vector<double> d(devices, 0);
  for (size_t c = 0; c < load.size(); ++c) d[device[c]] += load[c];
  return *std::max_element(d.begin(), d.end());
}

/// Device of each cluster minimising the maximum device load with K/D clusters per device.
std::vector<int> assign_clusters(const std::vector<double>& load, int devices) {
  const int K = static_cast<int>(load.size()), per_device = K / devices;
  const auto greedy = greedy_balance(load, devices, per_device);
  const double bound = std::max(std::accumulate(load.begin(), load.end(), 0.0) / devices,
                                *std::max_element(load.begin(), load.end()));
  const double greedy_max = max_load(load, greedy, devices);
  if (per_device == 1 || greedy_max <= bound * (1 + kGap)) return greedy;  // nothing left to gain
  glp_prob* lp = glp_create_prob();
  glp_set_obj_dir(lp, GLP_MIN);
  const int x0 = 1, L = K * devices + 1;  // column of x_cd = x0 + c*devices + d; L last
  glp_add_cols(lp, L);
  for (int c = 0; c < K; ++c)
    for (int d = 0; d < devices; ++d) glp_set_col_kind(lp, x0 + c * devices + d, GLP_BV);
  glp_set_col_bnds(lp, L, GLP_LO, 0, 0);
  glp_set_obj_coef(lp, L, 1);
  std::vector<int> ia{0}, ja{0};
  std::vector<double> ar{0};
  auto entry = [&](int row, int col, double v) { ia.push_back(row), ja.push_back(col), ar.push_back(v); };
  int row = glp_add_rows(lp, K + 2 * devices);
  for (int c = 0; c < K; ++c, ++row) {
    glp_set_row_bnds(lp, row, GLP_FX, 1, 1);
    for (int d = 0; d < devices; ++d) entry(row, x0 + c * devices + d, 1);
  }
  for (int d = 0; d < devices; ++d, ++row) {
    glp_set_row_bnds(lp, row, GLP_FX, per_device, per_device);
    for (int c = 0; c < K; ++c) entry(row, x0 + c * devices + d, 1);
  }
  for (int d = 0; d < devices; ++d, ++row) {
    glp_set_row_bnds(lp, row, GLP_UP, 0, 0);
    for (int c = 0; c < K; ++c) entry(row, x0 + c * devices + d, load[c]);
    entry(row, L, -1);
  }
  glp_load_matrix(lp, static_cast<int>(ia.size()) - 1, ia.data(), ja.data(), ar.data());
  SearchState state;
  state.start.assign(L + 1, 0);
  for (int c = 0; c < K; ++c) state.start[x0 + c * devices + greedy[c]] = 1;
  state.start[L] = greedy_max;
  glp_smcp lp_parm;
  glp_init_smcp(&lp_parm);
  lp_parm.msg_lev = GLP_MSG_OFF;
  std::vector<int> device = greedy;
  if (glp_simplex(lp, &lp_parm) == 0) {
    glp_iocp parm;
    glp_init_iocp(&parm);
    parm.msg_lev = GLP_MSG_OFF;
    parm.mip_gap = kGap;
    parm.cb_func = on_node;
    parm.cb_info = &state;
    glp_intopt(lp, &parm);
    const int status = glp_mip_status(lp);
    if ((status == GLP_OPT || status == GLP_FEAS) && glp_mip_obj_val(lp) < greedy_max)
      for (int c = 0; c < K; ++c)
        for (int d = 0; d < devices; ++d)
          if (glp_mip_col_val(lp, x0 + c * devices + d) > 0.5) device[c] = d;
  }
  glp_delete_prob(lp);
  return device;
}

/// "auto": the largest divisor of the experts per device up to half of them (2 clusters per device when it is even;
/// an odd count such as 5 or 63 needs a divisor, or the clusters would not fill the devices: a crash before).
int auto_cluster_size(int per_device) {
  for (int size = std::max(1, per_device / 2); size > 1; --size)
    if (per_device % size == 0) return size;
  return 1;
}

class Mozart final : public ExpertPlacementStrategy {
 public:
  explicit Mozart(int cluster_size) : cluster_size_(cluster_size) {}
  ExpertPlacement place(const ExpertStats& st, int devices) const override {
    const int per_device = st.experts / devices;
    const int size = cluster_size_ > 0 ? cluster_size_ : auto_cluster_size(per_device);
    const auto clusters = cluster_experts(st, size);
    std::vector<double> load(clusters.size(), 0);
    for (size_t c = 0; c < clusters.size(); ++c)
      for (int e : clusters[c]) load[c] += st.frequency[e];
    const auto device = assign_clusters(load, devices);
    ExpertPlacement p;
    p.devices = devices;
    p.hosts.resize(st.experts);
    for (size_t c = 0; c < clusters.size(); ++c)
      for (int e : clusters[c]) p.hosts[e] = {device[c]};
    return p;
  }

 private:
  int cluster_size_;
};

const scenario::FieldList kParams = {
    scenario::Field::integer("cluster_size", "experts per co-activation cluster; it must divide experts/devices; "
                                             "auto = the largest divisor of experts/devices up to half of it")
        .at_least(1).or_auto().with_default("auto")};

LLMSIM_REGISTER(ExpertPlacementStrategy, "mozart",
                "co-activation clusters (farthest-point seeds) assigned to devices by an integer program minimising "
                "the most loaded device (GLPK)",
                kParams, [](const scenario::Params& p, const scenario::Scenario& s) {
                  if (s.model.moe.experts > limits::kMaxPairwiseExperts)
                    throw ScenarioError("/model/moe/experts", std::to_string(s.model.moe.experts) + " experts: Mozart's "
                                        "placement clusters expert pairs, at most " +
                                        std::to_string(limits::kMaxPairwiseExperts) + " experts (or another placement)");
                  int size = 0;
                  if (!p.is_auto("cluster_size")) {
                    size = p.integer("cluster_size");
                    const int per_device = s.model.moe.experts / std::max(1, s.parallelism.ep);
                    if (per_device % size != 0)
                      throw ScenarioError("/strategies/expert_placement/cluster_size",
                                          std::to_string(size) + " does not divide the " + std::to_string(per_device) +
                                              " experts per device (model.moe.experts / parallelism.ep)");
                  }
                  return std::make_unique<Mozart>(size);
                });

}  // namespace
}  // namespace llmsim::strategy
