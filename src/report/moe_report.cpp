#include "llmsim/report/moe_report.hpp"

#include <algorithm>
#include <sstream>

#include "llmsim/model/transformer.hpp"

namespace llmsim::report {

using nlohmann::json;

json moe_summary(const scenario::Scenario& s, const workload::MoePlan& plan, int micro_batches) {
  const auto& moe = s.model.moe;
  const int n = static_cast<int>(plan.traffic.size()), ep = s.parallelism.ep;
  json c_t = json::array(), imbalance = json::array();
  double c_t_sum = 0, imbalance_sum = 0, imbalance_max = 0, dropped = 0, pairs = 0, copies_between = 0;
  std::vector<double> per_device(ep, 0), per_expert(moe.experts, 0);
  for (const auto& tr : plan.traffic) {
    c_t.push_back(tr.c_t());
    imbalance.push_back(tr.imbalance());
    c_t_sum += tr.c_t();
    imbalance_sum += tr.imbalance();
    imbalance_max = std::max(imbalance_max, tr.imbalance());
    dropped += tr.dropped;
    pairs += tr.tokens * moe.top_k;
    for (int d = 0; d < ep; ++d) per_device[d] += tr.pairs_on[d] / n;
    for (int e = 0; e < moe.experts; ++e) per_expert[e] += tr.expert_load[e] / n;
    for (int a = 0; a < ep; ++a)
      for (int b = 0; b < ep; ++b)
        if (a != b) copies_between += tr.copies[static_cast<size_t>(a) * ep + b];
  }
  const double vector_bytes = s.model.hidden * model::LayerShape::from(s).bytes_per_element();
  const double groups = double(s.parallelism.dp_cp()) / ep;  // EP groups of each stage (a layer lives on one stage)
  return {{"layers", n},
          {"experts", moe.experts},
          {"top_k", moe.top_k},
          {"ep", ep},
          {"routing", s.routing.name},
          {"expert_placement", s.strategies.expert_placement.name},
          {"ep_dispatch", s.parallelism.ep_dispatch},
          {"c_t", n ? c_t_sum / n : 0},
          {"c_t_per_layer", c_t},
          {"imbalance", n ? imbalance_sum / n : 0},
          {"imbalance_max", imbalance_max},
          {"imbalance_per_layer", imbalance},
          {"dropped_fraction", pairs > 0 ? dropped / pairs : 0},
          {"per_device_tokens", per_device},
          {"per_expert_tokens", per_expert},
          {"all_to_all_bytes_per_iteration", 4 * copies_between * vector_bytes * micro_batches * groups}};
}

std::string moe_load_csv(const workload::MoePlan& plan) {
  std::ostringstream os;
  os << "layer,device,expert,tokens\n";
  for (size_t l = 0; l < plan.traffic.size(); ++l)
    for (int d = 0; d < plan.placements[l].devices; ++d) {
      const auto experts = plan.placements[l].experts_on(d);
      for (size_t i = 0; i < experts.size(); ++i)
        os << l << ',' << d << ',' << experts[i] << ',' << plan.traffic[l].slot_tokens[d][i] << '\n';
    }
  return os.str();
}

std::string moe_traffic_csv(const workload::MoePlan& plan) {
  std::ostringstream os;
  os << "layer,src,dst,token_copies\n";
  for (size_t l = 0; l < plan.traffic.size(); ++l) {
    const int D = plan.traffic[l].devices;
    for (int a = 0; a < D; ++a)
      for (int b = 0; b < D; ++b) os << l << ',' << a << ',' << b << ',' << plan.traffic[l].copies[static_cast<size_t>(a) * D + b] << '\n';
  }
  return os.str();
}

}  // namespace llmsim::report
