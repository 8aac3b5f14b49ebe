#pragma once
// Field tables of every scenario section (the single source of truth for validation, defaults and docs).
#include "llmsim/scenario/families.hpp"
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
/// serving.kv_cache: block size, memory share and basis, watermark, preemption, swap space, blocks.
FieldList kv_cache_fields();
/// Software preset (configs/software/): name, sources and efficiency multipliers; its "defaults" are applied
/// by the loader before validation (scenario/software.hpp).
FieldList software_fields();

/// Sections that may name a preset ("preset": "<name>" or the bare name as a string) and the configs/
/// sub-folder holding those presets.
struct PresetSection {
  const char* section;
  const char* folder;
};
const std::vector<PresetSection>& preset_sections();
/// The software preset of a training scenario without a "software" section.
inline constexpr const char* kDefaultSoftware = "megatron-2021";

// The accessors below are defined in loader.cpp; with the families (families.hpp) the loader builds its checks
// from them and `llmsim schema` (scenario/reference.hpp) prints them.

/// Fixed fields of top-level section `section` (hardware_fields() for "hardware" ...); empty for a leaf
/// (name, seed, ...) or a section made only of families (strategies, routing).
FieldList section_fields(const std::string& section);

/// Whether a scenario of `kind` may have top-level section `section` (no training section when serving, no
/// serving section otherwise).
bool section_allowed(const std::string& section, const std::string& kind);

}  // namespace llmsim::scenario
