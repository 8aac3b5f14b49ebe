// JSON Schema (draft 2020-12) printer of the scenario reference (docs/scenario.schema.json).
#include <algorithm>

#include "llmsim/scenario/reference.hpp"
#include "llmsim/scenario/field_json.hpp"

namespace llmsim::scenario {

namespace {

using ojson = nlohmann::ordered_json;

ojson schema_of(const ReferenceNode& n, bool strict);

std::string description(const ReferenceNode& n) {
  return n.field.help + (n.field.unit.empty() ? "" : " [" + n.field.unit + "]");
}

/// The type and range of a leaf value ("auto" aside).
ojson value_schema(const Field& f) {
  ojson s;
  switch (f.type) {
    case FieldType::Integer: s["type"] = "integer"; break;
    case FieldType::Number: s["type"] = "number"; break;
    case FieldType::Boolean: s["type"] = "boolean"; break;
    case FieldType::String: s["type"] = "string"; break;
    case FieldType::Enum: s = {{"type", "string"}, {"enum", f.allowed}}; break;
    case FieldType::NumberMap: {
      ojson props = ojson::object();
      for (const auto& k : f.allowed)
        props[k] = f.min ? ojson{{"type", "number"}, {"minimum", *f.min}} : ojson{{"type", "number"}, {"exclusiveMinimum", 0}};
      return {{"type", "object"}, {"properties", props}, {"additionalProperties", false}};  // the bound is the values'
    }
    case FieldType::Object: break;
  }
  if (f.min) s[f.min_exclusive ? "exclusiveMinimum" : "minimum"] = *f.min;
  if (f.max) s[f.max_exclusive ? "exclusiveMaximum" : "maximum"] = *f.max;
  return s;
}

/// An object of `children` (after `properties`, e.g. a family's "name"); `strict` = fields without a default
/// are required (not when a preset may supply them).
ojson object_body(const std::vector<ReferenceNode>& children, bool strict, ojson properties = ojson::object()) {
  ojson required = ojson::array();
  for (const auto& c : children) {
    properties[c.field.key] = schema_of(c, strict);
    if (strict && !c.field.default_value && !c.is_family() && c.kinds.empty()) required.push_back(c.field.key);
  }
  ojson s = {{"type", "object"}, {"properties", properties}};
  if (!required.empty()) s["required"] = required;
  s["additionalProperties"] = false;
  return s;
}

ojson family_schema(const ReferenceNode& n, bool strict) {
  const ReferenceNode& name = n.children.front();
  const std::string fallback = std::get<std::string>(*name.field.default_value);
  ojson by_member = ojson::array();
  for (const auto& m : n.members) {
    ojson when = {{"properties", {{"name", {{"const", m.name}}}}}};
    if (m.name != fallback) when["required"] = {"name"};  // an absent name is the fallback
    ojson then = object_body(m.params, strict, {{"name", true}});
    then.erase("type");
    by_member.push_back({{"if", when}, {"then", then}});
  }
  ojson object = {{"type", "object"}, {"properties", {{"name", schema_of(name, strict)}}}, {"allOf", by_member}};
  return {{"description", description(n) + " (a member name, or an object whose \"name\" picks the member)"},
          {"anyOf", {{{"type", "string"}, {"enum", name.field.allowed}}, object}}};
}

/// A preset name, {"preset": name, <overrides>} (with the fields the preset lacks) or all fields.
ojson preset_section_schema(const ReferenceNode& n, bool strict) {
  ojson complete = ojson::array(), needs = ojson::array();
  for (const auto& p : n.presets) {
    const auto lacking = n.preset_needs.find(p);
    if (lacking == n.preset_needs.end())
      complete.push_back(p);
    else
      needs.push_back({{"if", {{"properties", {{"preset", {{"const", p}}}}}}}, {"then", {{"required", lacking->second}}}});
  }
  const std::string where = "preset in configs/" + n.preset_folder + "/";
  ojson with_preset = object_body(n.children, false, {{"preset", {{"type", "string"}, {"enum", n.presets},
                                                                  {"description", where}}}});
  with_preset["required"] = {"preset"};
  if (!needs.empty()) with_preset["allOf"] = needs;
  ojson forms = ojson::array();
  if (!complete.empty()) forms.push_back({{"type", "string"}, {"enum", complete}, {"description", where}});
  forms.push_back(with_preset);
  forms.push_back(object_body(n.children, strict));
  return {{"description", description(n)}, {"anyOf", forms}};
}

ojson schema_of(const ReferenceNode& n, bool strict) {
  if (n.is_family()) return family_schema(n, strict);
  if (!n.presets.empty()) return preset_section_schema(n, strict);
  ojson s = {{"description", description(n)}};
  if (n.field.type == FieldType::Object) {
    s.update(object_body(n.children, strict));
    return s;
  }
  ojson alternatives = ojson::array({value_schema(n.field)});
  if (n.field.allow_zero) alternatives.push_back({{"const", 0}});
  if (n.field.allow_auto) alternatives.push_back({{"const", "auto"}});
  if (alternatives.size() > 1)
    s["anyOf"] = alternatives;
  else
    s.update(value_schema(n.field));
  if (n.field.default_value) s["default"] = to_json(*n.field.default_value);
  return s;
}

/// Per kind: the sections it may not have and the ones only it requires.
ojson kind_rules(const ReferenceNode& root) {
  ojson rules = ojson::array();
  for (const auto& kind_field : root.children) {
    if (kind_field.field.key != "kind") continue;
    for (const auto& kind : kind_field.field.allowed) {
      ojson excluded = ojson::object(), required = ojson::array();
      for (const auto& c : root.children) {
        if (c.kinds.empty()) continue;
        const bool allowed = std::find(c.kinds.begin(), c.kinds.end(), kind) != c.kinds.end();
        if (!allowed) excluded[c.field.key] = false;
        if (allowed && !c.field.default_value) required.push_back(c.field.key);
      }
      ojson when = {{"properties", {{"kind", {{"const", kind}}}}}};
      if (ojson(kind) != ojson(to_json(*kind_field.field.default_value))) when["required"] = {"kind"};
      ojson then = ojson::object();
      if (!excluded.empty()) then["properties"] = excluded;
      if (!required.empty()) then["required"] = required;
      rules.push_back({{"if", when}, {"then", then}});
    }
  }
  return rules;
}

}  // namespace

nlohmann::ordered_json reference_json_schema(const ReferenceNode& root) {
  ojson s = {{"$schema", "https://json-schema.org/draft/2020-12/schema"},
             {"title", "llmsim scenario"},
             {"description", "generated by `llmsim schema --format json-schema` from the validator's field tables; "
                             "docs/scenario-reference.md explains every field"}};
  s.update(object_body(root.children, true));
  s["allOf"] = kind_rules(root);
  return s;
}

}  // namespace llmsim::scenario
