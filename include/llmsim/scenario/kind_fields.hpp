#pragma once
// Fields a scenario kind does not read: set to a value other than their default they would be ignored, so they
// are errors. Checked on the scenario as written (after its presets and the schema's defaults), against the
// schema's own defaults; a value a software preset's defaults gave is the software's, not the scenario's, and is
// not checked.
#include <nlohmann/json.hpp>
#include <string>

#include "llmsim/scenario/schema.hpp"

namespace llmsim::scenario {

/// kind moe-chiplet (Mozart's chiplet system, workload/moe_chiplet.hpp): its chiplets run each micro-batch layer
/// by layer (no pipeline schedule, no tp, no rank layout), keep what the backward needs (no recomputation), hold
/// their weights in DRAM and exchange tokens, not collectives (no optimizer step, no ZeRO, no gradient buckets, no
/// collective algorithm); their host is not modelled (no CUDA graphs). Throws ScenarioError at the first field
/// `raw` sets to another value than its default, unless it is the value the software preset's defaults
/// (`software`, {section: {key: value}}) give it.
void check_chiplet_fields(const nlohmann::json& raw, const FieldList& fields, const nlohmann::json& software);

}  // namespace llmsim::scenario
