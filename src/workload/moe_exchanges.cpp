#include "llmsim/workload/moe_exchanges.hpp"

#include "llmsim/model/transformer.hpp"

namespace llmsim::workload {

MoeExchanges add_moe_exchanges(const scenario::Scenario& s, const MoePlan& plan, const std::vector<int>& stage_of_layer,
                               const std::function<int(int stage, int replica)>& worker_of,
                               const strategy::MoeLayout& layout, Workload& w) {
  MoeExchanges out;
  const int ep = out.ep = s.parallelism.ep, groups = s.parallelism.dp_cp() / ep, pp = s.parallelism.pp;
  const int keys = static_cast<int>(plan.traffic.size()) * 4;
  out.spec.assign(pp, std::vector<std::vector<std::vector<int>>>(groups, std::vector<std::vector<int>>(keys)));
  const double vector_bytes =
      s.model.hidden * model::LayerShape::from(s).bytes_per_element() / s.parallelism.tp / layout.chunks;
  const char* names[] = {"ep dispatch", "ep combine", "ep combine grad", "ep dispatch grad"};
  // Parts of an exchange: the whole matrix, or (split) its intra-node and its inter-node pairs, each on its own
  // group (a group is a stream) of the same members.
  struct Part {
    const char* suffix;
    int same_node;  // -1 all pairs, 1 pairs inside a node, 0 pairs across nodes
  };
  const std::vector<Part> parts = layout.split_all_to_all ? std::vector<Part>{{" (intra-node)", 1}, {" (inter-node)", 0}}
                                                          : std::vector<Part>{{"", -1}};
  for (int layer = 0; layer < s.model.layers; ++layer) {
    const int index = plan.moe_index[layer];
    if (index < 0) continue;
    const auto& tr = plan.traffic[index];
    const int stage = stage_of_layer[layer];
    for (int g = 0; g < groups; ++g) {
      if (worker_of(stage, g * ep) < 0) continue;  // folded away (ep divides the simulated dp indices)
      std::vector<int> members;
      for (int a = 0; a < ep; ++a) members.push_back(worker_of(stage, g * ep + a));
      for (const Part& part : parts) {
        std::vector<double> forward(static_cast<size_t>(ep) * ep, 0), back(forward.size(), 0);
        double total = 0;
        for (int a = 0; a < ep; ++a)
          for (int b = 0; b < ep; ++b) {
            const bool same = w.workers[members[a]].node == w.workers[members[b]].node;
            if (a == b || (part.same_node >= 0 && same != (part.same_node == 1))) continue;
            const double bytes = tr.copies[static_cast<size_t>(a) * ep + b] * vector_bytes;
            forward[static_cast<size_t>(a) * ep + b] = back[static_cast<size_t>(b) * ep + a] = bytes;
            total += bytes;
          }
        if (total == 0 && parts.size() > 1) continue;  // e.g. the inter-node part of a group inside one node
        const int group = static_cast<int>(w.groups.size());
        w.groups.push_back(members);
        for (int e = 0; e < 4; ++e) {
          const bool dispatch_pattern =
              e == static_cast<int>(Exchange::Dispatch) || e == static_cast<int>(Exchange::CombineGrad);
          out.spec[stage][g][moe_exchange_key(index, static_cast<Exchange>(e))].push_back(
              static_cast<int>(w.collectives.size()));
          w.collectives.push_back({std::string(names[e]) + part.suffix, group, collectives::Kind::AllToAllV, total / ep,
                                   TimeCategory::EpComm, collectives::Algorithm::Direct,
                                   dispatch_pattern ? forward : back});
        }
      }
    }
  }
  return out;
}

}  // namespace llmsim::workload
