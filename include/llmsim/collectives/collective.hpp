#pragma once
// The collective library: every collective of every workload becomes a Plan — a sequence of steps, each a set
// of concurrent transfers between group members (and, for in-switch reduction, the node's switch). The engine
// starts a step's transfers as SimGrid flows, waits for all of them, then waits the step's extra latency hops.
// Sizes follow nccl-tests: `bytes` is the per-rank buffer ("size"); algbw = size / time and
//   busbw = algbw * 2(n-1)/n (all-reduce), (n-1)/n (reduce-scatter, all-gather, all-to-all), 1 (broadcast,
//   reduce, send/recv)   [NVIDIA nccl-tests, doc/PERFORMANCE.md].
// Aggregation: an algorithm whose per-step transfers repeat over many pipelined steps (ring, tree) is issued as
// one step carrying all the bytes of each edge plus (steps-1) extra latency hops; uncongested, this equals the
// alpha-beta time exactly (alpha_beta.hpp), congested it smooths the per-step synchronisation.
#include <string>
#include <vector>

namespace llmsim::collectives {

enum class Kind { AllReduce, ReduceScatter, AllGather, Broadcast, Reduce, AllToAll, AllToAllV, SendRecv };
enum class Algorithm { Auto, Ring, Tree, HalvingDoubling, Direct, Hierarchical, InSwitch };

const char* kind_name(Kind k);
const char* algorithm_name(Algorithm a);
const std::vector<std::string>& kind_names();       ///< as accepted in JSON / on the command line
const std::vector<std::string>& algorithm_names();
Kind kind_from_name(const std::string& name);        ///< throws std::invalid_argument
Algorithm algorithm_from_name(const std::string& name);

/// busbw / algbw for n ranks (nccl-tests' factor).
double bus_factor(Kind k, int n);

/// Who takes part: members in the group's order and the node of each; `switch_reduction` when the members'
/// node switch can reduce in the network (NVLS); `window` bounds concurrent peers of direct algorithms (0 = all).
/// Folded replicas (workload/replica_fold.hpp): `represents` > size() when the members stand for a larger group
/// of identical replicas; ring, tree and hierarchical plans then size their bytes per edge and latency hops for
/// represents() members while their flows run between the members present (docs/performance.md), and the other
/// algorithms are not supported.
struct GroupLayout {
  std::vector<int> node_of_member;
  bool switch_reduction = false;
  /// A ring of point-to-point sends in member order, one flow per hop (Transformer Engine's context-parallel ring),
  /// instead of NCCL's channels that enter each node at a different GPU and so spread a hop over several NICs.
  bool point_to_point = false;
  int window = 0;
  int represented = 0;  ///< members the group stands for; 0 = size()
  int size() const { return static_cast<int>(node_of_member.size()); }
  int represents() const { return represented > size() ? represented : size(); }
  bool folded() const { return represents() > size(); }
  int nodes() const;                  ///< distinct nodes
  int members_per_node() const;       ///< k if every node holds k consecutive members, else 0
};

struct Transfer {
  int src = 0, dst = 0;  ///< endpoint indices: 0..n-1 members; n + i = switch of the i-th distinct node
  double bytes = 0;
};

struct Step {
  std::vector<Transfer> transfers;  ///< run concurrently
  int extra_latency_hops = 0;       ///< after the transfers, wait this many times the step's largest route latency
};

struct Plan {
  Algorithm algorithm = Algorithm::Ring;
  std::vector<Step> steps;
};

/// Builds the plan of `kind` with `algorithm` (not Auto) for `bytes` per rank; `matrix` gives the bytes from
/// member i to member j (row-major n x n) for AllToAllV and is ignored otherwise. SendRecv goes from member 0 to
/// member 1. Throws std::invalid_argument when the algorithm does not implement the kind or does not fit the
/// layout (e.g. halving-doubling on a non-power-of-two group, in-switch reduction without a reducing switch).
Plan make_plan(Kind kind, Algorithm algorithm, const GroupLayout& layout, double bytes,
               const std::vector<double>& matrix = {});

/// True if make_plan accepts this combination.
bool supports(Kind kind, Algorithm algorithm, const GroupLayout& layout);
/// What `algorithm` needs to run (for an error when supports() is false), e.g. "an all-reduce within one node whose
/// switch reduces (NVLS: the hardware preset's nvswitch_reduction)".
std::string requirements(Algorithm algorithm);

}  // namespace llmsim::collectives
