#include "llmsim/serving/scheduler.hpp"

namespace llmsim::serving {

std::unique_ptr<Scheduler> make_scheduler(const scenario::Scenario& s) {
  return SchedulerRegistry::instance().make(s.serving.scheduler, s, "/serving/scheduler", "scheduler");
}

KvGeometry replica_kv(const scenario::Scenario& s) {
  const auto probe = make_scheduler(s);
  return kv_geometry(s, probe->max_batched_tokens(), probe->max_batch_size());
}

}  // namespace llmsim::serving
