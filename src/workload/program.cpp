#include "llmsim/workload/program.hpp"

#include <algorithm>
#include <utility>

namespace llmsim::workload {

const char* time_category_name(TimeCategory c) {
  static const char* names[] = {"gemm", "attention", "elementwise", "tp_comm", "pp_comm", "dp_comm", "ep_comm",
                                "cp_comm", "optimizer", "offload", "host", "idle"};
  return names[static_cast<int>(c)];
}

TimeCategory ComputeCost::main_category() const {
  auto cat = TimeCategory::Gemm;
  for (int c = 0; c < kTimeCategories; ++c)
    if (by_category[c] > by_category[static_cast<int>(cat)]) cat = static_cast<TimeCategory>(c);
  return cat;
}

std::vector<int> in_topology_order(std::vector<int> members, const Workload& w) {
  std::stable_sort(members.begin(), members.end(), [&](int a, int b) {
    const Worker &x = w.workers[a], &y = w.workers[b];
    return std::make_pair(x.node, x.first_local) < std::make_pair(y.node, y.first_local);
  });
  return members;
}

}  // namespace llmsim::workload
