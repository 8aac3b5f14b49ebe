#include "llmsim/workload/moe_exchanges.hpp"

#include <utility>

#include "llmsim/model/transformer.hpp"

namespace llmsim::workload {

namespace {
/// The pairs of one exchange matrix inside a node (same_node) or across nodes.
struct Part {
  std::string suffix;
  std::vector<double> forward, back;  ///< bytes a -> b of the dispatch pattern and of the combine pattern
  double total = 0;
};
Part part_of(const std::vector<double>& copies, const std::vector<int>& members, const Workload& w, double vector_bytes,
             bool same_node, const std::string& suffix) {
  const size_t ep = members.size();
  Part p{suffix, std::vector<double>(ep * ep, 0), std::vector<double>(ep * ep, 0), 0};
  for (size_t a = 0; a < ep; ++a)
    for (size_t b = 0; b < ep; ++b) {
      const bool same = w.workers[members[a]].node == w.workers[members[b]].node;
      if (a == b || same != same_node) continue;
      p.forward[a * ep + b] = p.back[b * ep + a] = copies[a * ep + b] * vector_bytes;
      p.total += p.forward[a * ep + b];
    }
  return p;
}
}  // namespace

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
  // An exchange's intra-node and inter-node pairs. NCCL's all-to-all runs them one after the other (ScheMoE, Shi et
  // al. EuroSys 2024, Sec. 5, Eqs. 16-18: M t1 + (P - M) t2 for P peers, M of them in the node): both parts queue on
  // one group (a group is a stream). Pipe-A2A (split_all_to_all) gives each part its own group of the same members,
  // so they run at once: max(M t1, (P - M) t2). An exchange with pairs of one kind only is one collective.
  for (int layer = 0; layer < s.model.transformer_layers(); ++layer) {
    const int index = plan.moe_index[layer];
    if (index < 0) continue;
    const auto& copies = plan.traffic[index].copies;
    const int stage = stage_of_layer[layer];
    for (int g = 0; g < groups; ++g) {
      if (worker_of(stage, g * ep) < 0) continue;  // folded away (ep divides the simulated dp indices)
      std::vector<int> members;
      for (int a = 0; a < ep; ++a) members.push_back(worker_of(stage, g * ep + a));
      std::vector<Part> parts = {part_of(copies, members, w, vector_bytes, true, " (intra-node)"),
                                 part_of(copies, members, w, vector_bytes, false, " (inter-node)")};
      if (!layout.split_all_to_all && (parts[0].total == 0 || parts[1].total == 0)) {  // the other is the whole
        Part whole = std::move(parts[parts[0].total == 0 ? 1 : 0]);
        whole.suffix.clear();
        parts = {std::move(whole)};
      }
      int group = -1;
      for (const Part& part : parts) {
        if (part.total == 0 && layout.split_all_to_all) continue;  // e.g. the inter-node part inside one node
        if (group < 0 || layout.split_all_to_all) {
          group = static_cast<int>(w.groups.size());
          w.groups.push_back(members);
        }
        for (int e = 0; e < 4; ++e) {
          const bool dispatch_pattern =
              e == static_cast<int>(Exchange::Dispatch) || e == static_cast<int>(Exchange::CombineGrad);
          out.spec[stage][g][moe_exchange_key(index, static_cast<Exchange>(e))].push_back(
              static_cast<int>(w.collectives.size()));
          w.collectives.push_back({std::string(names[e]) + part.suffix, group, collectives::Kind::AllToAllV,
                                   part.total / ep, TimeCategory::EpComm, collectives::Algorithm::Direct,
                                   dispatch_pattern ? part.forward : part.back});
        }
      }
    }
  }
  return out;
}

}  // namespace llmsim::workload
