#pragma once
// The JSON side of field tables (schema.hpp), for scenario/ only: checking a JSON object against its fields and
// a field's default as JSON.
#include <nlohmann/json.hpp>
#include <string>

#include "llmsim/scenario/params.hpp"
#include "llmsim/scenario/schema.hpp"

namespace llmsim::scenario {

/// Checks `obj` (at JSON pointer `path`) against `fields`: unknown keys (with a "did you mean"), types,
/// ranges, allowed values; fills defaults in place. Throws ScenarioError naming the offending path.
void apply_schema(nlohmann::json& obj, const std::string& path, const FieldList& fields);

/// A default value as JSON: long long -> integer, double -> number, bool, string, EmptyObject -> {}.
nlohmann::json to_json(const DefaultValue& v);

/// The typed view of `obj`, an object already checked against `fields` (apply_schema): one Value per field,
/// numbers converted by unit_scale; keys of `obj` without a field (a family's "name") are left out.
Params to_params(const nlohmann::json& obj, const FieldList& fields, const std::string& owner);

}  // namespace llmsim::scenario
