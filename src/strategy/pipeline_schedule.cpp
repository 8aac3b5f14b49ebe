#include "llmsim/strategy/pipeline_schedule.hpp"

#include <algorithm>

#include "llmsim/util/error.hpp"

namespace llmsim::strategy {

int max_in_flight(const std::vector<PipelineTask>& order) {
  int live = 0, peak = 0;
  for (const auto& t : order) {
    if (t.pass == PipelineTask::Pass::Forward) ++live;
    if (t.pass == PipelineTask::Pass::Backward || t.pass == PipelineTask::Pass::BackwardWeight) --live;
    peak = std::max(peak, live);
  }
  return peak;
}

std::unique_ptr<PipelineSchedule> make_pipeline_schedule(const scenario::Scenario& s) {
  const auto& choice = s.strategies.pipeline_schedule;
  const auto* entry = PipelineScheduleRegistry::instance().find(choice.name);
  if (!entry) throw ScenarioError("/strategies/pipeline_schedule/name", "unknown schedule \"" + choice.name + "\"");
  auto schedule = entry->factory(choice.params, s);
  const int chunks = s.parallelism.pp * schedule->chunks_per_stage();
  if (s.model.layers % chunks != 0)
    throw ScenarioError("/model/layers", std::to_string(s.model.layers) + " layers do not divide into pp*virtual_stages = " +
                                             std::to_string(chunks) + " equal chunks (layers must be a multiple of it)");
  return schedule;
}

}  // namespace llmsim::strategy
