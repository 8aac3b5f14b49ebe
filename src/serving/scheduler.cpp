#include "llmsim/serving/scheduler.hpp"

namespace llmsim::serving {

std::unique_ptr<Scheduler> make_scheduler(const scenario::Scenario& s) {
  return SchedulerRegistry::instance().make(s.serving.scheduler, s, "/serving/scheduler", "scheduler");
}

}  // namespace llmsim::serving
