#pragma once
// Field tables of every scenario section (the single source of truth for validation, defaults and docs).
#include "llmsim/scenario/schema.hpp"

namespace llmsim::scenario {

FieldList top_level_fields();   ///< name, description, kind, seed and the sections below
FieldList hardware_fields();    ///< device preset: peaks, memory, NVLink, NICs, calibration
FieldList cluster_fields();     ///< nodes, NICs, leaf/spine fat-tree
FieldList model_fields();       ///< dense transformer shape
FieldList parallelism_fields(); ///< tp, pp, dp, cp, sequence parallelism
FieldList training_fields();    ///< batch, sequence, precision, recomputation, optimizer, overlap
FieldList network_fields();     ///< SimGrid network model
FieldList output_fields();      ///< trace options
FieldList faults_fields();      ///< failure horizon and sampling (the process is a family, added by the loader)
/// Serving settings (kind "serving"); workload, scheduler and router are families added by the loader.
FieldList serving_fields();

/// Sections that may name a preset ("preset": "<name>" or the bare name as a string) and the configs/
/// sub-folder holding those presets.
struct PresetSection {
  const char* section;
  const char* folder;
};
const std::vector<PresetSection>& preset_sections();

}  // namespace llmsim::scenario
