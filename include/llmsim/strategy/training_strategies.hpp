#pragma once
// The strategies of one training scenario, built once from the resolved scenario and handed down to the
// workload, the fault run and the reports; no layer below builds them again.
#include <memory>

#include "llmsim/moe/routing.hpp"
#include "llmsim/scenario/scenario.hpp"
#include "llmsim/strategy/expert_placement.hpp"
#include "llmsim/strategy/fault_tolerance.hpp"
#include "llmsim/strategy/moe_pipeline.hpp"
#include "llmsim/strategy/pipeline_schedule.hpp"

namespace llmsim::strategy {

struct TrainingStrategies {
  std::unique_ptr<PipelineSchedule> schedule;
  std::unique_ptr<MoePipeline> moe_pipeline;
  std::unique_ptr<ExpertPlacementStrategy> expert_placement;
  std::unique_ptr<FaultTolerance> fault_tolerance;
  std::unique_ptr<moe::RoutingModel> routing;
};

/// Builds every strategy `s` names (training and moe-chiplet kinds) and checks the rules between them: a
/// chunked MoE pipeline (tutel/schemoe chunks > 1, FlowMoE's per-layer gradients) does not combine with a
/// braided pipeline schedule (ScenarioError at /strategies/moe_pipeline/chunks or /name).
TrainingStrategies build_training_strategies(const scenario::Scenario& s);

/// The rules between the strategies of `s` alone (resolve checks each member by itself, then these).
void check_combination(const scenario::Scenario& s);

}  // namespace llmsim::strategy
