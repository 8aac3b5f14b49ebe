#pragma once
// Flow aggregation (issue 18; network.aggregate_flows, on by default where the topology allows it).
//
// A direct all-to-all over n ranks starts n(n-1) flows at once; SimGrid re-solves their shared max-min system
// and walks its list of detached communications at each flow's end, so its cost grows with the square of the
// flows (a 1 MiB all-to-all over 2,048 ranks has 4.2 million). When every GPU reaches its node's other GPUs
// through its own NVSwitch port and other nodes through its own NIC, and the fabric beyond the NICs never limits
// (a non-blocking fat-tree: platform::Topology::fold_unit_nodes > 0), the only links that can hold a flow back
// are its source's egress port and its destination's ingress port. A step's transfers are then re-paired,
// separately inside each node and across nodes, into a transport plan with the same bytes leaving and entering
// every member — the north-west corner rule over the members in order against the members shifted by one
// member (inside a node) or by one node (across nodes), at most 2 n - 1 flows per class instead of n(n-1).
// Uniform exchanges map exactly onto n shifted flows; skewed ones (MoE routing) keep every port's bytes but
// share them over time differently than the all-pairs flows do (error measured in docs/performance.md).
// A class is left as it was when re-pairing would pair a member with itself or with its own node, or would not
// reduce the flows; transfers to a switch endpoint (in-switch reduction) are never touched.
#include "llmsim/collectives/collective.hpp"

namespace llmsim::collectives {

/// `plan` with each step's transfers re-paired as above when it is a Direct (all-pairs) plan, else `plan`
/// unchanged (ring, tree and the others start about one flow per member already); member i lives on
/// layout.node_of_member[i].
Plan aggregate_flows(const Plan& plan, const GroupLayout& layout);

}  // namespace llmsim::collectives
