#pragma once
// From a scenario file (plus --set overrides) to a typed, resolved Scenario.
// Steps: read + parse JSON -> apply overrides -> expand presets -> check every section against its field
// table -> cross-field rules -> typed structs in SI units. Every failure is a ScenarioError whose path is a
// JSON pointer into the scenario (or the file path when the file itself cannot be read).
#include <string>
#include <vector>

#include "llmsim/scenario/scenario.hpp"

namespace llmsim::scenario {

/// Directory holding hardware/, models/ and topologies/ presets: $LLMSIM_CONFIG_DIR if set, else configs/
/// next to or above the executable, else the source tree's configs/.
std::string config_dir();

/// Directory of the shipped data files (data/azure-llm-2023/ ...): the `data` directory next to config_dir().
std::string data_dir();

/// Names of the presets in configs/<folder>/ (file names without .json), sorted.
std::vector<std::string> list_presets(const std::string& folder);

/// Reads configs/<folder>/<name>.json. Throws ScenarioError at `path` if there is no such preset.
nlohmann::json load_preset(const std::string& folder, const std::string& name, const std::string& path);

/// Reads and parses a JSON file; errors name the file (and line/column for syntax errors).
nlohmann::json read_json_file(const std::string& file);

/// Applies one "--set a.b.c=value" override; value is parsed as JSON, or taken as a string if it is not JSON.
void apply_override(nlohmann::json& scenario, const std::string& assignment);

/// Validates and resolves a scenario JSON document; relative file names in it resolve against `source_dir`.
Scenario resolve(nlohmann::json raw, const std::string& source_dir = "");

/// read_json_file + apply_override for each + resolve.
Scenario load_scenario(const std::string& file, const std::vector<std::string>& overrides = {});

}  // namespace llmsim::scenario
