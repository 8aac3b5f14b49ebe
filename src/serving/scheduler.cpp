#include "llmsim/serving/scheduler.hpp"
#include "llmsim/strategy/family.hpp"

namespace llmsim::serving {

std::unique_ptr<Scheduler> make_scheduler(const scenario::Scenario& s) {
  return SchedulerRegistry::instance().make(s.serving.scheduler, s, "/serving/scheduler", "scheduler");
}

KvGeometry replica_kv(const scenario::Scenario& s) {
  const auto probe = make_scheduler(s);
  return kv_geometry(s, probe->max_batched_tokens(), probe->max_batch_size());
}

LLMSIM_FAMILY(Scheduler, "serving", "scheduler", "vllm", "batch scheduler of each replica", 90,
              {"serving", "serving.scheduler", 2}, [](const scenario::Scenario& s) { make_scheduler(s); });

}  // namespace llmsim::serving
