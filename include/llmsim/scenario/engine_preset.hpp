#pragma once
// Serving engine presets (`serving.engine`, configs/engines/<name>.json; docs/serving.md). A preset file holds
//   name, description, source   what the engine is and where its numbers come from
//   defaults                    scheduler and KV cache settings of the engine, written beneath the scenario's
//                               serving section (a scenario's own value wins; a scheduler naming another member
//                               replaces the engine's scheduler instead of merging into it)
//   fits                        per hardware preset name: step_overhead_us, sequence_overhead_us,
//                               collective_hop_us [us], matmul_multiplier, memory_multiplier (times the
//                               device's serving efficiencies, hardware.calibration.serving_*) and moe_multiplier
//                               (its MoE kernels' efficiency relative to its dense ones), each fitted to one
//                               published table of the engine on that hardware (the source says which), and
//                               optionally matmul_half_dim (its GEMM efficiency curve's half dimension when its
//                               kernels differ from those the device's serving table was measured with; absent
//                               or 0: hardware.calibration.serving_matmul_half_dim)
// A scenario writes serving.engine as {"name": <preset>, <fields to override>}. The resolved serving.engine is {name, description, source, the six numbers of the scenario's hardware}; the
// scenario may override any of them. An engine without a fit for the scenario's hardware is an error at
// /serving/engine unless the scenario sets all six numbers. No serving.engine: kDefaultEngine.
#include <nlohmann/json.hpp>

#include "llmsim/scenario/schema.hpp"

namespace llmsim::scenario {

/// The engine of a serving scenario without serving.engine: the 2023 vLLM fit that serving scenarios had before
/// engines existed (docs/decisions.md).
inline constexpr const char* kDefaultEngine = "vllm-2023";

/// Fields of the resolved serving.engine object.
FieldList engine_fields();

/// Expands serving.engine of a serving scenario `raw` (hardware preset already expanded) as above. Throws
/// ScenarioError at /serving/engine/name (unknown engine) or /serving/engine (no fit for the hardware).
void expand_engine(nlohmann::json& raw);

}  // namespace llmsim::scenario
