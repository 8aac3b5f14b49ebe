#include "llmsim/collectives/collective.hpp"

#include <algorithm>
#include <map>
#include <set>
#include <stdexcept>

#include "llmsim/collectives/algorithms.hpp"

namespace llmsim::collectives {

namespace {
const std::vector<std::string> kKinds = {"all-reduce", "reduce-scatter", "all-gather", "broadcast",
                                         "reduce",     "all-to-all",     "all-to-all-v", "send-recv"};
const std::vector<std::string> kAlgorithms = {"auto", "ring", "tree", "halving-doubling", "direct", "hierarchical",
                                              "in-switch"};
}  // namespace

const char* kind_name(Kind k) { return kKinds[static_cast<int>(k)].c_str(); }
const char* algorithm_name(Algorithm a) { return kAlgorithms[static_cast<int>(a)].c_str(); }
const std::vector<std::string>& kind_names() { return kKinds; }
const std::vector<std::string>& algorithm_names() { return kAlgorithms; }

Kind kind_from_name(const std::string& name) {
  auto it = std::find(kKinds.begin(), kKinds.end(), name);
  if (it == kKinds.end()) throw std::invalid_argument("unknown collective " + name);
  return static_cast<Kind>(it - kKinds.begin());
}

Algorithm algorithm_from_name(const std::string& name) {
  auto it = std::find(kAlgorithms.begin(), kAlgorithms.end(), name);
  if (it == kAlgorithms.end()) throw std::invalid_argument("unknown collective algorithm " + name);
  return static_cast<Algorithm>(it - kAlgorithms.begin());
}

double bus_factor(Kind k, int n) {
  switch (k) {
    case Kind::AllReduce: return 2.0 * (n - 1) / n;
    case Kind::ReduceScatter:
    case Kind::AllGather:
    case Kind::AllToAll:
    case Kind::AllToAllV: return double(n - 1) / n;
    default: return 1.0;
  }
}

int GroupLayout::nodes() const { return static_cast<int>(std::set<int>(node_of_member.begin(), node_of_member.end()).size()); }

int GroupLayout::members_per_node() const {
  std::map<int, int> count;
  for (size_t i = 0; i < node_of_member.size(); ++i) {
    if (i > 0 && node_of_member[i] != node_of_member[i - 1] && count.count(node_of_member[i])) return 0;
    ++count[node_of_member[i]];
  }
  const int k = count.begin()->second;
  for (const auto& [node, c] : count)
    if (c != k) return 0;
  return k;
}

bool supports(Kind kind, Algorithm algorithm, const GroupLayout& layout) {
  const int n = layout.size();
  if (layout.folded() && algorithm != Algorithm::Ring && algorithm != Algorithm::Tree &&
      algorithm != Algorithm::Hierarchical)
    return false;
  switch (algorithm) {
    case Algorithm::Auto: return false;
    case Algorithm::Ring:
      return kind == Kind::AllReduce || kind == Kind::ReduceScatter || kind == Kind::AllGather ||
             kind == Kind::Broadcast || kind == Kind::Reduce;
    case Algorithm::Tree: return kind == Kind::AllReduce && n >= 2;
    case Algorithm::HalvingDoubling:
      return (kind == Kind::AllReduce || kind == Kind::ReduceScatter || kind == Kind::AllGather) && n >= 2 &&
             (n & (n - 1)) == 0;
    case Algorithm::Direct: return true;
    case Algorithm::Hierarchical:
      return kind == Kind::AllReduce && layout.nodes() > 1 && layout.members_per_node() > 1;
    case Algorithm::InSwitch: return kind == Kind::AllReduce && layout.switch_reduction && layout.nodes() == 1;
  }
  return false;
}

std::string requirements(Algorithm algorithm) {
  switch (algorithm) {
    case Algorithm::Auto: return "nothing (it chooses)";
    case Algorithm::Ring: return "an all-reduce, reduce-scatter, all-gather, broadcast or reduce";
    case Algorithm::Tree: return "an all-reduce on at least 2 ranks";
    case Algorithm::HalvingDoubling: return "an all-reduce, reduce-scatter or all-gather on a power-of-two number of ranks";
    case Algorithm::Direct: return "any collective";
    case Algorithm::Hierarchical: return "an all-reduce over more than one node, with more than one rank per node";
    case Algorithm::InSwitch:
      return "an all-reduce within one node whose switch reduces (NVLS: the hardware preset's nvswitch_reduction)";
  }
  return "";
}

Plan make_plan(Kind kind, Algorithm algorithm, const GroupLayout& layout, double bytes, const std::vector<double>& matrix) {
  const int n = layout.size();
  if (n < 1 || (kind == Kind::SendRecv && n != 2))
    throw std::invalid_argument(std::string(kind_name(kind)) + " needs " + (kind == Kind::SendRecv ? "2" : "at least 1") +
                                " ranks");
  if (kind == Kind::AllToAllV && matrix.size() != static_cast<size_t>(n) * n)
    throw std::invalid_argument("all-to-all-v needs an n x n size matrix");
  if (!supports(kind, algorithm, layout))
    throw std::invalid_argument(std::string("the ") + algorithm_name(algorithm) + " algorithm does not implement " +
                                kind_name(kind) + " on this group");
  Plan p;
  p.algorithm = algorithm;
  if (n == 1) return p;
  switch (algorithm) {
    case Algorithm::Ring: p.steps = ring_steps_plan(kind, layout, bytes); break;
    case Algorithm::Tree: p.steps = tree_plan(layout, bytes); break;
    case Algorithm::HalvingDoubling: p.steps = halving_doubling_plan(kind, n, bytes); break;
    case Algorithm::Direct: p.steps = direct_plan(kind, n, bytes, layout.window, matrix); break;
    case Algorithm::Hierarchical: p.steps = hierarchical_plan(layout, bytes); break;
    case Algorithm::InSwitch: p.steps = in_switch_plan(n, bytes); break;
    case Algorithm::Auto: break;
  }
  return p;
}

}  // namespace llmsim::collectives
