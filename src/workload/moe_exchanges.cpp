#include "llmsim/workload/moe_exchanges.hpp"

#include "llmsim/model/transformer.hpp"

namespace llmsim::workload {

MoeExchanges add_moe_exchanges(const scenario::Scenario& s, const MoePlan& plan, const std::vector<int>& stage_of_layer,
                               const std::function<int(int stage, int replica)>& worker_of, int chunks, Workload& w) {
  MoeExchanges out;
  const int ep = out.ep = s.parallelism.ep, groups = s.parallelism.dp / ep, pp = s.parallelism.pp;
  const int keys = static_cast<int>(plan.traffic.size()) * 4;
  out.spec.assign(pp, std::vector<std::vector<int>>(groups, std::vector<int>(keys, -1)));
  const double vector_bytes = s.model.hidden * model::LayerShape::from(s).bytes_per_element / s.parallelism.tp / chunks;
  const char* names[] = {"ep dispatch", "ep combine", "ep combine grad", "ep dispatch grad"};
  for (int layer = 0; layer < s.model.layers; ++layer) {
    const int index = plan.moe_index[layer];
    if (index < 0) continue;
    const auto& tr = plan.traffic[index];
    std::vector<double> forward(static_cast<size_t>(ep) * ep, 0), back(forward.size(), 0);
    double total = 0;
    for (int a = 0; a < ep; ++a)
      for (int b = 0; b < ep; ++b)
        if (a != b) {
          const double bytes = tr.copies[static_cast<size_t>(a) * ep + b] * vector_bytes;
          forward[static_cast<size_t>(a) * ep + b] = back[static_cast<size_t>(b) * ep + a] = bytes;
          total += bytes;
        }
    const int stage = stage_of_layer[layer];
    for (int g = 0; g < groups; ++g) {
      const int group = static_cast<int>(w.groups.size());
      std::vector<int> members;
      for (int a = 0; a < ep; ++a) members.push_back(worker_of(stage, g * ep + a));
      w.groups.push_back(members);
      for (int e = 0; e < 4; ++e) {
        const bool dispatch_pattern = e == static_cast<int>(Exchange::Dispatch) || e == static_cast<int>(Exchange::CombineGrad);
        out.spec[stage][g][moe_exchange_key(index, static_cast<Exchange>(e))] = static_cast<int>(w.collectives.size());
        w.collectives.push_back({names[e], group, collectives::Kind::AllToAllV, total / ep, TimeCategory::EpComm,
                                 collectives::Algorithm::Direct, dispatch_pattern ? forward : back});
      }
    }
  }
  return out;
}

}  // namespace llmsim::workload
