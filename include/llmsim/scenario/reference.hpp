#pragma once
// The scenario reference (`llmsim schema`): every field the validator accepts, walked once from the same
// tables the loader checks against (sections.hpp: section_fields, families, preset_sections, section_allowed;
// each registered strategy's parameter table) into a tree, then printed either as Markdown
// (docs/scenario-reference.md) or as a JSON Schema draft 2020-12 (docs/scenario.schema.json).
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "llmsim/scenario/schema.hpp"

namespace llmsim::scenario {

struct ReferenceNode;

/// A registered member of a family: its name, description and parameters (nodes below the family's path).
struct ReferenceMember {
  std::string name;
  std::string description;
  std::vector<ReferenceNode> params;
};

/// One field of a scenario. Paths are dotted, as `--set` takes them ("serving.kv_cache.block_size"); the root
/// (the scenario object itself) has path "".
struct ReferenceNode {
  std::string path;
  Field field;                           ///< key, type, unit, default, range, allowed values, help; its own
                                         ///< `children` are empty: they are in `children` below
  std::vector<ReferenceNode> children;   ///< fields of an Object (a family: just its "name" choice)
  std::vector<ReferenceMember> members;  ///< non-empty = a family: "name" picks one member, whose parameters
                                         ///< sit beside "name"; the value may also be the bare name
  std::string preset_folder;             ///< non-empty = a preset section: configs/<preset_folder>/
  std::vector<std::string> presets;      ///< names it may take ("preset": name, or the bare name)
  std::map<std::string, std::vector<std::string>> preset_needs;  ///< per preset lacking required fields (e.g.
                                                                 ///< cluster.nodes): their keys, to be given
                                                                 ///< beside "preset" (no bare name then)
  std::vector<std::string> kinds;        ///< scenario kinds that may have this field; empty = every kind
  bool is_family() const { return !members.empty(); }
};

/// The whole scenario: the top-level fields in table order, each section with its fields, each family at its
/// place (cluster.topology, strategies.*, routing, faults.process, serving.*) with every registered member.
/// Preset names are read from config_dir(), and each preset for the required fields it leaves out.
ReferenceNode scenario_reference();

/// Markdown: per section a table (key, type, unit, default, allowed values/range, description), nested objects
/// as sub-sections, per family every member with its description and parameter table.
std::string reference_markdown(const ReferenceNode& root);

/// JSON Schema draft 2020-12 of a scenario file: objects with "properties" and "additionalProperties": false,
/// "required" for fields without a default, numeric ranges as minimum/maximum/exclusive*, enums, defaults,
/// descriptions; "auto" accepted where the field allows it; a preset section is a preset name or an object
/// (with "preset" the other fields are optional but for those the preset lacks; a preset lacking some has no
/// bare-name form); a family is a member name or an object whose "name" selects
/// the member's parameters (if/then); sections of one kind only are excluded for the others (if/then on "kind").
nlohmann::ordered_json reference_json_schema(const ReferenceNode& root);

/// A number as the reference prints it: integral values without a fraction, others with up to 15 digits.
std::string format_reference_number(double v);

}  // namespace llmsim::scenario
