#pragma once
// Folding of identical data-parallel replicas (issue 18; network.fold_replicas, on by default).
//
// Every data-parallel replica of a training job runs the same program on the same kind of GPUs; only the
// collectives over the dp group (and over the dp/ep replicas holding the same experts) tie them together. On a
// topology that repeats one unit with identical links (a non-blocking fat-tree's leaf group, a non-blocking
// clos3's minipod), a dp ring or tree
// over the replicas inside two units meets every kind of route the whole group meets: NVLink inside a node, a
// leaf inside a unit, the uplinks between units. So only those replicas are simulated; each collective over
// them carries the bytes per edge and the latency hops of the whole group (collectives::GroupLayout::represented),
// and every other replica is taken to do what they do. SimGrid's cost then stops growing with dp: the number of
// flows in flight and the size of their connected max-min systems stay those of two units.
//
// What it cannot see, and where it is therefore off (measured in docs/performance.md): traffic patterns whose
// load per link grows with the group (a tree's edges crossing units in an oversubscribed tier; all-to-alls across
// the whole dp group, which no training collective here uses), link statistics of the nodes not simulated, and
// trace tracks of the ranks not simulated (they have none).
#include "llmsim/scenario/scenario.hpp"

namespace llmsim::workload {

struct TrainingLayout;

/// The dp indices simulated per (stage, cp rank), dp when nothing is folded: network.fold_replicas off, a
/// failure process (its timeline needs every node), an explicit network.collective_algorithm other than ring,
/// tree or hierarchical, or `unit_nodes` 0 (platform::Topology::fold_unit_nodes). Else the fewest indices f such
/// that f is a multiple of ep (at least 2 ep when dp >= 2 ep, so each experts' gradient group keeps two members),
/// f >= 2, the stage-0 replicas 0..f-1 fill whole nodes, and they occupy at least as many nodes as two units (or
/// all the nodes the whole group occupies, and then f = dp).
int simulated_dp(const scenario::Scenario& s, const TrainingLayout& l, int unit_nodes);

}  // namespace llmsim::workload
