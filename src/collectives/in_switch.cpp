// In-switch reduction (NVLink SHARP / NVLS on NVSwitch gen3): every member sends its buffer to the switch,
// which reduces and multicasts the result; up and down streams overlap, so one step moves S each way.
#include "llmsim/collectives/algorithms.hpp"

namespace llmsim::collectives {

std::vector<Step> in_switch_plan(int n, double bytes) {
  Step s;
  for (int i = 0; i < n; ++i) {
    s.transfers.push_back({i, n, bytes});
    s.transfers.push_back({n, i, bytes});
  }
  s.extra_latency_hops = 1;
  return {s};
}

}  // namespace llmsim::collectives
