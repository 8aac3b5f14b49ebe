#include "llmsim/report/recorder.hpp"

#include <algorithm>

namespace llmsim::report {

Recorder::Recorder(int workers, int iterations, std::vector<bool> traced)
    : busy_(workers), dynamic_energy_(workers, 0.0), iteration_ends_(iterations, 0.0), traced_(std::move(traced)), iteration_of_(workers, 0) {
  for (auto& b : busy_) b.fill(0.0);
}

void Recorder::add_breakdown(int worker, const workload::TimeBreakdown& b) {
  for (int i = 0; i < workload::kTimeCategories; ++i) busy_[worker][i] += b[i];
}

void Recorder::iteration_end(int worker, int iteration, double time) {
  iteration_ends_[iteration] = std::max(iteration_ends_[iteration], time);
  iteration_of_[worker] = iteration + 1;
}

}  // namespace llmsim::report
