#pragma once
// What the engine observes while it runs: per-worker time by category, iteration ends and (for traced
// workers) the events that become trace.json. Filled by engine/, read by report/.
#include <cstdint>
#include <string>
#include <vector>

#include "llmsim/engine/simulation.hpp"
#include "llmsim/workload/program.hpp"

namespace llmsim::report {

struct TraceEvent {
  int worker = 0;
  uint8_t stream = 0;  ///< 0 = compute, 1 = communication
  workload::TimeCategory category = workload::TimeCategory::Gemm;
  workload::Pass pass = workload::Pass::None;
  int micro_batch = -1, chunk = -1;
  int32_t ref = 0;     ///< cost, peer worker or collective index
  double start = 0, end = 0;  ///< [s]
  int iteration = 0;   ///< set by Recorder::event: the worker's iteration (IterationEndOps it has passed)
};

class Recorder {
 public:
  Recorder(int workers, int iterations, std::vector<bool> traced);

  /// Adds `seconds` of `c` to the worker's busy time (compute stream).
  void add_time(int worker, workload::TimeCategory c, double seconds) { busy_[worker][static_cast<int>(c)] += seconds; }
  void add_breakdown(int worker, const workload::TimeBreakdown& b);
  /// Adds a compute block's energy above idle power [J] (hardware/power_model.hpp).
  void add_dynamic_energy(int worker, double joules) { dynamic_energy_[worker] += joules; }
  /// The worker passed the end of `iteration`: its later events belong to iteration + 1.
  void iteration_end(int worker, int iteration, double time);
  bool traced(int worker) const { return traced_[worker]; }
  /// Keeps `e` (stamped with its worker's current iteration) if its worker is traced.
  void event(TraceEvent e) {
    if (!traced_[e.worker]) return;
    e.iteration = iteration_of_[e.worker];
    events_.push_back(e);
  }
  void count_activity(long long n = 1) { activities_ += n; }
  void set_links(std::vector<engine::LinkStat> links) { links_ = std::move(links); }
  /// Per-link traffic of the run, busiest first.
  const std::vector<engine::LinkStat>& links() const { return links_; }

  const std::vector<workload::TimeBreakdown>& busy() const { return busy_; }
  /// Per worker: energy above idle power over the run [J].
  const std::vector<double>& dynamic_energy() const { return dynamic_energy_; }
  /// End of iteration i: the latest worker's end [s].
  const std::vector<double>& iteration_ends() const { return iteration_ends_; }
  const std::vector<TraceEvent>& events() const { return events_; }
  long long activities() const { return activities_; }

 private:
  std::vector<workload::TimeBreakdown> busy_;
  std::vector<double> dynamic_energy_;
  std::vector<double> iteration_ends_;
  std::vector<bool> traced_;
  std::vector<int> iteration_of_;  ///< per worker: the iteration it is in
  std::vector<TraceEvent> events_;
  long long activities_ = 0;
  std::vector<engine::LinkStat> links_;
};

}  // namespace llmsim::report
