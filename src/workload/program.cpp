#include "llmsim/workload/program.hpp"

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

}  // namespace llmsim::workload
