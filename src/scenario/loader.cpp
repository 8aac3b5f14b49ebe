#include "llmsim/scenario/loader.hpp"


#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <cctype>
#include <map>
#include <optional>
#include <set>
#include <sstream>

#include "llmsim/scenario/engine_preset.hpp"
#include "llmsim/scenario/field_json.hpp"
#include "llmsim/scenario/kind_fields.hpp"
#include "llmsim/scenario/reference.hpp"
#include "llmsim/scenario/sections.hpp"
#include "llmsim/scenario/typed.hpp"
#include "llmsim/strategy/training_strategies.hpp"
#include "llmsim/util/error.hpp"
#include "llmsim/util/input_file.hpp"
#include "llmsim/util/limits.hpp"
#include "llmsim/scenario/json_text.hpp"

namespace llmsim::scenario {

namespace fs = std::filesystem;
using nlohmann::json;

std::string config_dir() {
  if (const char* env = std::getenv("LLMSIM_CONFIG_DIR"); env && *env) {
    if (!fs::is_directory(fs::path(env) / "hardware"))
      throw ScenarioError("LLMSIM_CONFIG_DIR", std::string(env) + " is not a configs directory (one holding hardware/, "
                                               "models/, ...); unset it to use the configs next to llmsim");
    return env;
  }
  std::error_code ec;
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (!ec) {
    for (const fs::path& candidate : {exe.parent_path() / "configs", exe.parent_path().parent_path() / "configs"})
      if (fs::is_directory(candidate / "hardware")) return candidate.string();
  }
  return LLMSIM_SOURCE_CONFIG_DIR;
}

std::string data_dir() {
  fs::path configs = fs::path(config_dir()).lexically_normal();
  if (!configs.has_filename()) configs = configs.parent_path();  // "configs/" names the same directory
  return (configs.parent_path() / "data").string();
}

std::vector<std::string> list_presets(const std::string& folder) {
  std::vector<std::string> names;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(fs::path(config_dir()) / folder, ec))
    if (e.path().extension() == ".json") names.push_back(e.path().stem().string());
  std::sort(names.begin(), names.end());
  return names;
}

json read_json_file(const std::string& file) {
  return parse_json_text(util::read_input_file(file, file, limits::kMaxJsonFileBytes), file);
}

json load_preset(const std::string& folder, const std::string& name, const std::string& path) {
  // Looked up by name among the shipped presets: the name never reaches the file system.
  const auto names = list_presets(folder);
  if (std::find(names.begin(), names.end(), name) == names.end()) {
    std::string all;
    for (const auto& n : names) all += (all.empty() ? "" : ", ") + n;
    const std::string hint = closest_match(name, names);
    throw ValueError(path, "unknown preset \"" + name + "\"" + (hint.empty() ? "" : "; did you mean \"" + hint + "\"?") +
                               " (one of: " + all + ")");
  }
  return read_json_file((fs::path(config_dir()) / folder / (name + ".json")).string());
}

namespace {
bool is_preset_section(const std::string& pointer) {
  for (const auto& ps : preset_sections())
    if (pointer == std::string("/") + ps.section) return true;
  return false;
}

/// Whether the scenario field at JSON pointer `pointer` (e.g. "/strategies/pipeline_schedule") is a family: a member
/// name, or an object whose "name" picks the member.
bool is_family_field(const std::string& pointer) {
  const ReferenceNode root = scenario_reference();
  const ReferenceNode* node = &root;
  std::stringstream parts(pointer.substr(1));
  std::string part;
  while (std::getline(parts, part, '/')) {
    const auto it = std::find_if(node->children.begin(), node->children.end(),
                                 [&](const ReferenceNode& c) { return c.field.key == part; });
    if (it == node->children.end()) return false;
    node = &*it;
  }
  return node->is_family();
}

/// `text` has the shape of a JSON-ish number: [+-] digits [. digits] or [+-] . digits, then [eE [+-] digits]
/// (1e999, +5, 1.): a broken number is an error, not a string. A loop, not a regex: std::regex recurses per
/// character and a value of 30,000 digits overflowed the stack.
bool number_shaped(const std::string& text) {
  size_t i = text.empty() || (text[0] != '+' && text[0] != '-') ? 0 : 1;
  const auto digits = [&] {
    const size_t start = i;
    while (i < text.size() && std::isdigit(static_cast<unsigned char>(text[i]))) ++i;
    return i - start;
  };
  const size_t whole = digits();
  size_t fraction = 0;
  if (i < text.size() && text[i] == '.') ++i, fraction = digits();
  if (whole == 0 && fraction == 0) return false;
  if (i < text.size() && (text[i] == 'e' || text[i] == 'E')) {
    ++i;
    if (i < text.size() && (text[i] == '+' || text[i] == '-')) ++i;
    if (digits() == 0) return false;
  }
  return i == text.size();
}
}  // namespace

void apply_override(json& scenario, const std::string& assignment) {
  const auto eq = assignment.find('=');
  if (eq == std::string::npos || eq == 0)
    throw ScenarioError("--set " + assignment, "expected json.path=value, e.g. parallelism.tp=4");
  const std::string key = assignment.substr(0, eq), text = assignment.substr(eq + 1);
  json value;
  try {
    value = parse_json_text(text, "--set " + assignment);
  } catch (const ScenarioError&) {  // a bare word is taken as a string; a broken object, array or number is not
    if (number_shaped(text) || text.find_first_of("{[\"") == 0) throw;
    value = text;
  }
  if (key.back() == '.') throw ScenarioError("--set " + assignment, "empty key in the path \"" + key + "\"");
  if (std::count(key.begin(), key.end(), '.') >= limits::kMaxJsonDepth)
    throw ScenarioError("--set " + key, "a path has at most " + std::to_string(limits::kMaxJsonDepth) + " keys");
  std::stringstream parts(key);
  std::string part, pointer;
  json* node = &scenario;
  for (int depth = 0; std::getline(parts, part, '.'); ++depth) {
    if (part.empty()) throw ScenarioError("--set " + assignment, "empty key in the path \"" + key + "\"");
    // A section given as a preset name becomes {"preset": name} so that its fields can be overridden.
    if (depth == 1 && node->is_string() && is_preset_section(pointer))
      *node = json{{"preset", node->get<std::string>()}};
    // A family given as a member name becomes {"name": name}, so that its parameters can be set.
    // So does the serving engine given by its preset name.
    if (depth >= 1 && node->is_string() && (is_family_field(pointer) || pointer == "/serving/engine"))
      *node = json{{"name", node->get<std::string>()}};
    if (!node->is_object() && !node->is_null()) {
      std::string held = node->dump();
      if (held.size() > 60) held = held.substr(0, 57) + "...";
      throw ScenarioError(pointer.empty() ? "/" : pointer, "cannot set a field inside it: it holds " + held +
                                                               ", not an object");
    }
    pointer += "/" + pointer_token(part);
    node = &(*node)[part];
  }
  *node = value;
}

namespace {

/// Where a preset section's values came from: its preset file, and the scenario's own fields merged over it.
struct PresetOrigin {
  std::string file;
  json overrides;
  json preset;  ///< the preset file's own values
};

/// A section written with all fields but named like a preset ({"name": "nemo-24.07"}) is a custom section that
/// takes its defaults, not the preset's values: refused when it lacks a key the preset sets, since that key would
/// silently differ from the preset the name promises. The preset's "defaults" (applied to other sections, and
/// absent from a resolved scenario) do not count, so a scenario.resolved.json loads as it is.
void refuse_partial_namesake(const PresetSection& ps, const json& sec, const std::string& path) {
  if (!sec.is_object() || sec.contains("preset") || !sec.contains("name") || !sec["name"].is_string()) return;
  const std::string name = sec["name"].get<std::string>();
  const auto names = list_presets(ps.folder);
  if (std::find(names.begin(), names.end(), name) == names.end()) return;
  const json preset = load_preset(ps.folder, name, path + "/name");
  for (const auto& [key, value] : preset.items())
    if (key != "defaults" && !sec.contains(key))
      throw ScenarioError(path, "an object without \"preset\" is a custom " + std::string(ps.section) +
                                    " and lacks the preset " + name + "'s \"" + key + "\"; write {\"preset\": \"" +
                                    name + "\", <fields to override>} to start from the preset, or give it another name");
}

/// Expands each preset section; returns the origin of each expanded one ("/hardware" -> ...).
std::map<std::string, PresetOrigin> expand_presets(json& raw) {
  std::map<std::string, PresetOrigin> origins;
  for (const auto& ps : preset_sections()) {
    if (!raw.contains(ps.section)) continue;
    json& sec = raw[ps.section];
    const std::string path = std::string("/") + ps.section;
    if (sec.is_string()) sec = json{{"preset", sec.get<std::string>()}};
    refuse_partial_namesake(ps, sec, path);
    if (!sec.is_object() || !sec.contains("preset")) continue;
    if (!sec["preset"].is_string()) throw ValueError(path + "/preset", "expected a preset name (a string)");
    json merged = load_preset(ps.folder, sec["preset"].get<std::string>(), path + "/preset");
    const json preset = merged;
    json overrides = sec;
    overrides.erase("preset");
    // A family choice ({"name": ...}, e.g. cluster.topology) naming another member replaces the preset's
    // instead of merging into it: the other member's parameters would not apply.
    for (auto& [key, value] : overrides.items())
      if (merged.contains(key) && merged[key].is_object() && value.is_object() && value.contains("name") &&
          merged[key].value("name", json()) != value["name"])
        merged.erase(key);
    merged.merge_patch(overrides);
    origins[path] = {(fs::path(config_dir()) / ps.folder / (sec["preset"].get<std::string>() + ".json")).string(), overrides,
                     preset};
    sec = merged;
  }
  return origins;
}

/// What a software preset's "defaults" did: the paths they filled ("/parallelism/tp_comm_overlap") and the values
/// the scenario's own fields shadowed, so that an error in either names where it came from.
struct SoftwareDefaults {
  std::set<std::string> filled;
  json shadowed = json::object();  ///< {section: {key: the defaults' value}} for the keys the scenario set itself
  json values = json::object();    ///< all of them, {section: {key: value}}
};

/// The software preset's defaults as the scenario got them: applied now, or, for a resolved scenario (its software
/// section names the preset, without "defaults": its sections already hold them), the named preset's.
json software_defaults(const json& raw, const SoftwareDefaults& applied) {
  if (!applied.values.empty() || !raw.contains("software") || !raw["software"].is_object()) return applied.values;
  const std::string name = raw["software"].value("name", "");
  const auto names = list_presets("software");
  if (std::find(names.begin(), names.end(), name) == names.end()) return json::object();
  return load_preset("software", name, "/software").value("defaults", json::object());
}

/// The software preset's "defaults" ({section: {field: value}}) fill the fields the scenario leaves out; every
/// value is validated as if the scenario had it, the shadowed ones too. The key is dropped: the sections hold the
/// result.
SoftwareDefaults apply_software_defaults(json& raw) {
  SoftwareDefaults out;
  if (!raw.contains("software") || !raw["software"].is_object() || !raw["software"].contains("defaults")) return out;
  const json defaults = raw["software"]["defaults"];
  raw["software"].erase("defaults");
  if (!defaults.is_object()) throw ScenarioError("/software/defaults", "expected an object of sections");
  out.values = defaults;
  for (const auto& [section, fields] : defaults.items()) {
    if (!fields.is_object() || (section != "training" && section != "parallelism"))
      throw ScenarioError("/software/defaults/" + pointer_token(section),
                          "expected training or parallelism, each an object of fields");
    // The schema reports a section that is not an object, or the required training section missing; the
    // parallelism section is optional (all its fields have defaults).
    if ((raw.contains(section) && !raw[section].is_object()) || (!raw.contains(section) && section == "training"))
      continue;
    for (const auto& [key, value] : fields.items()) {
      if (raw[section].contains(key)) {
        out.shadowed[section][key] = value;
      } else {
        raw[section][key] = value;
        out.filled.insert("/" + section + "/" + pointer_token(key));
      }
    }
  }
  return out;
}

/// `e` located at the software defaults when its path lies in a field they filled; nothing otherwise.
std::optional<ScenarioError> at_origin(const ScenarioError& e, const std::set<std::string>& filled) {
  for (const auto& path : filled)
    if (e.path() == path || e.path().rfind(path + "/", 0) == 0) return ScenarioError("/software/defaults" + e.path(), e.message());
  return std::nullopt;
}

/// `e` naming the preset file its value came from, when the scenario did not give that value itself; nothing
/// otherwise.
std::optional<ScenarioError> in_preset(const ScenarioError& e, const std::map<std::string, PresetOrigin>& origins) {
  for (const auto& [section, origin] : origins) {
    if (e.path().rfind(section + "/", 0) != 0) continue;
    try {
      const json::json_pointer at(e.path().substr(section.size()));
      // The scenario's own value, or one the preset does not hold (a missing field): not the preset's.
      if (origin.overrides.contains(at) || !origin.preset.contains(at)) return std::nullopt;
    } catch (const json::exception&) {  // not a JSON pointer into the section
      return std::nullopt;
    }
    return ScenarioError(e.path(), e.message() + " (the value comes from the preset file " + origin.file + ")");
  }
  return std::nullopt;
}

/// The field of family `fam` inside `parent` ({"name": ..., <its own parameters>}, or the bare name as a
/// string): the name choice plus the chosen member's parameter table.
Field family_field(json& parent, const Family& fam) {
  const std::string path = (fam.section.empty() ? "" : "/" + fam.section) + "/" + fam.key;
  if (!parent.contains(fam.key)) parent[fam.key] = json{{"name", fam.fallback}};
  json& v = parent[fam.key];
  if (v.is_string()) v = json{{"name", v.get<std::string>()}};
  if (!v.is_object()) throw ScenarioError(path, "expected an object with a \"name\", or a name");
  const auto members = fam.members();
  std::vector<std::string> names;
  for (const auto& m : members) names.push_back(m.name);
  FieldList fields = {Field::choice("name", names, fam.help).with_default(fam.fallback)};
  json probe = json{{"name", v.value("name", json(fam.fallback))}};
  apply_schema(probe, path, fields);
  for (const auto& m : members)
    if (m.name == probe["name"]) fields.insert(fields.end(), m.params.begin(), m.params.end());
  return Field::object(fam.key, fields, fam.help).with_default(EmptyObject{});
}

bool is_serving(const json& raw) { return raw.is_object() && raw.value("kind", json("training")) == json("serving"); }

/// Serving and training scenarios have their own sections: the other kind's section is an error, not ignored.
/// The kind is checked first: the sections allowed depend on it.
void check_kind_sections(const json& raw) {
  const FieldList top = top_level_fields();
  const json kind = raw.value("kind", json("training"));
  json probe = {{"kind", kind}};
  apply_schema(probe, "", {*std::find_if(top.begin(), top.end(), [](const Field& f) { return f.key == "kind"; })});
  for (const auto& f : top)
    if (raw.contains(f.key) && !section_allowed(f.key, kind.get<std::string>()))
      throw ScenarioError("/" + f.key, is_serving(raw) ? "a serving scenario has no " + f.key + " section (serving.* "
                                                         "sets the workload, precision and scheduling, parallelism.dp "
                                                         "the replicas)"
                                                       : "the serving section needs \"kind\": \"serving\"");
}

/// The field table of `raw`: the sections of its kind, each family with the parameters of the member it names.
/// Adds the families' defaults (and an empty section holding them) to `raw`.
FieldList scenario_fields(json& raw) {
  check_kind_sections(raw);
  const std::string kind = is_serving(raw) ? "serving" : "training";
  FieldList fields;
  for (auto& f : top_level_fields()) {
    if (!section_allowed(f.key, kind)) continue;
    f.children = section_fields(f.key);
    fields.push_back(std::move(f));
  }
  for (const auto& fam : families()) {
    if (fam.section.empty() && !section_allowed(fam.key, kind)) continue;
    FieldList* list = &fields;
    json* parent = &raw;
    if (!fam.section.empty()) {
      const auto sec = std::find_if(fields.begin(), fields.end(), [&](const Field& f) { return f.key == fam.section; });
      if (sec == fields.end()) continue;  // a section this kind has not
      if (!raw.contains(fam.section) && sec->default_value) raw[fam.section] = json::object();
      if (!raw.contains(fam.section) || !raw[fam.section].is_object()) continue;  // apply_schema reports it
      list = &sec->children;
      parent = &raw[fam.section];
    }
    Field f = family_field(*parent, fam);
    const auto slot = std::find_if(list->begin(), list->end(), [&](const Field& c) { return c.key == fam.key; });
    if (slot == list->end())
      list->push_back(std::move(f));
    else
      *slot = std::move(f);
  }
  return fields;
}

}  // namespace

FieldList section_fields(const std::string& section) {
  if (section == "hardware") return hardware_fields();
  if (section == "software") return software_fields();
  if (section == "cluster") return cluster_fields();
  if (section == "model") return model_fields();
  if (section == "parallelism") return parallelism_fields();
  if (section == "training") return training_fields();
  if (section == "faults") return faults_fields();
  if (section == "serving") return serving_fields();
  if (section == "network") return network_fields();
  if (section == "output") return output_fields();
  return {};
}

bool section_allowed(const std::string& section, const std::string& kind) {
  if (section == "training" || section == "strategies" || section == "faults" || section == "routing" ||
      section == "software")
    return kind != "serving";
  if (section == "serving") return kind == "serving";
  return true;
}

namespace {
/// Each value a scenario's own field shadowed, checked against that field's schema as if it had applied.
void check_shadowed(const json& raw, const FieldList& fields, const SoftwareDefaults& defaults) {
  for (const auto& [section, values] : defaults.shadowed.items())
    for (const auto& [key, value] : values.items()) {
      json probe = raw;
      probe[section][key] = value;
      try {
        apply_schema(probe, "", fields);
      } catch (const ScenarioError& e) {
        if (auto moved = at_origin(e, {"/" + section + "/" + pointer_token(key)})) throw *moved;
        throw;  // as thrown (a ValueError stays one)
      }
    }
}

/// `raw` with its presets expanded: validated, typed and cross-checked.
Scenario resolve_expanded(json raw, const std::string& source_dir, const SoftwareDefaults& defaults) {
  const FieldList fields = scenario_fields(raw);
  check_shadowed(raw, fields, defaults);
  apply_schema(raw, "", fields);
  if (raw["kind"] == "moe-chiplet") check_chiplet_fields(raw, fields, software_defaults(raw, defaults));
  fill_derived_defaults(raw);
  Scenario s = to_typed(raw);
  s.source_dir = source_dir;
  check_cross_fields(s);
  s.resolved = raw;
  for (const auto& fam : families())  // each chosen member's own cross-field rules (a trace is read and checked)
    if (s.choices.count(fam.path())) fam.check(s);
  if (s.kind != "serving") strategy::check_combination(s);  // the rules between strategies
  return s;
}
}  // namespace

Scenario resolve(json raw, const std::string& source_dir) {
  if (!raw.is_object()) throw ScenarioError("/", "a scenario is a JSON object");
  if (const auto at = find_null(raw); !at.empty())
    throw ValueError(at, "null is not a value (leave the key out to take its default)");
  // Software fields given without a preset or a name (e.g. --set software.kernel_launch_us=10) override the default.
  if (!is_serving(raw)) {
    if (!raw.contains("software")) raw["software"] = kDefaultSoftware;
    if (auto& sw = raw["software"]; sw.is_object() && !sw.contains("preset") && !sw.contains("name"))
      sw["preset"] = kDefaultSoftware;
  }
  const auto origins = expand_presets(raw);
  try {
    const auto defaults = apply_software_defaults(raw);
    expand_engine(raw);  // after the hardware preset: an engine's fit is per hardware
    try {
      return resolve_expanded(std::move(raw), source_dir, defaults);
    } catch (const ScenarioError& e) {
      if (auto moved = at_origin(e, defaults.filled)) throw *moved;
      throw;  // as thrown (a ValueError stays one)
    }
  } catch (const ScenarioError& e) {
    if (auto named = in_preset(e, origins)) throw *named;
    throw;
  }
}

Scenario load_scenario(const std::string& file, const std::vector<std::string>& overrides) {
  json raw = read_json_file(file);
  if (!raw.is_object()) throw ScenarioError("/", "a scenario is a JSON object, got something else in " + file);
  for (const auto& o : overrides) apply_override(raw, o);
  return resolve(std::move(raw), fs::path(file).parent_path().string());
}

}  // namespace llmsim::scenario
