#pragma once
// Second half of scenario resolution: derived defaults ("auto"), conversion to SI-unit structs and the
// cross-field rules. Inputs are already checked field by field (schema.hpp).
#include "llmsim/scenario/scenario.hpp"

namespace llmsim::scenario {

/// Replaces every "auto" by its derived value (dp from the GPU count, cluster NICs from the hardware, ...).
/// Throws ScenarioError when a value cannot be derived (e.g. GPUs not divisible by tp*pp*cp).
void fill_derived_defaults(nlohmann::json& raw);

/// Converts the checked JSON into typed structs in SI units.
Scenario to_typed(const nlohmann::json& raw);

/// Rules across fields: tp*pp*dp*cp = GPUs, heads divisible by tp, global batch divisible by
/// micro-batch*dp, sequence within the model's max, precision supported by the hardware, tp within a node.
void check_cross_fields(const Scenario& s);

}  // namespace llmsim::scenario
