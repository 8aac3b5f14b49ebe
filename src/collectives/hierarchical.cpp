// Hierarchical all-reduce (NCCL's CollNet-free 2D scheme; Horovod's hierarchical all-reduce): ring
// reduce-scatter inside each node, ring all-reduce of the 1/k shard across nodes among members with the same
// local index, ring all-gather inside each node.
#include "llmsim/collectives/algorithms.hpp"
#include "llmsim/collectives/ring.hpp"

namespace llmsim::collectives {

namespace {
/// One ring step over `members` (indices into the group) moving `edge` bytes per edge.
void add_ring(Step& step, const std::vector<int>& members, double edge) {
  const int m = static_cast<int>(members.size());
  for (int i = 0; i < m && m > 1; ++i) step.transfers.push_back({members[i], members[(i + 1) % m], edge});
}
}  // namespace

std::vector<Step> hierarchical_plan(const GroupLayout& layout, double bytes) {
  const int n = layout.size(), k = layout.members_per_node(), m = n / k;
  const int logical_nodes = layout.represents() / k;  // nodes of the group the members stand for
  Step rs, ar, ag;
  for (int node = 0; node < m; ++node) {
    std::vector<int> local;
    for (int l = 0; l < k; ++l) local.push_back(node * k + l);
    add_ring(rs, local, ring_edge_bytes(Kind::ReduceScatter, k, bytes));
    add_ring(ag, local, ring_edge_bytes(Kind::AllGather, k, bytes));
  }
  for (int l = 0; l < k; ++l) {
    std::vector<int> across;
    for (int node = 0; node < m; ++node) across.push_back(node * k + l);
    add_ring(ar, across, ring_edge_bytes(Kind::AllReduce, logical_nodes, bytes / k));
  }
  rs.extra_latency_hops = ag.extra_latency_hops = ring_steps(Kind::ReduceScatter, k) - 1;
  ar.extra_latency_hops = ring_steps(Kind::AllReduce, logical_nodes) - 1;
  return {rs, ar, ag};
}

}  // namespace llmsim::collectives
