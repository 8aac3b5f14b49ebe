#pragma once
// Self-describing scenario fields: each field declares its type, unit, default, range, allowed values and
// help text in one place. The same table validates input, fills defaults and feeds `llmsim list` and the
// scenario reference (the ns-3 attribute idea, see docs/architecture.md).
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

namespace llmsim::scenario {

enum class FieldType { Integer, Number, Boolean, String, Enum, NumberMap, Object };

struct Field;
using FieldList = std::vector<Field>;

/// One key of a JSON object. A field without a default is required. `default_value` may be the string
/// "auto" for numeric fields whose value is derived from other fields (documented in `help`).
struct Field {
  std::string key;
  FieldType type = FieldType::Number;
  std::string unit;                     ///< unit of the JSON value, also in the key name ("_GBps")
  std::string help;
  std::optional<nlohmann::json> default_value;  ///< absent = required
  std::optional<double> min, max;       ///< inclusive numeric range
  bool min_exclusive = false, max_exclusive = false;
  std::vector<std::string> allowed;     ///< Enum values, or NumberMap keys
  FieldList children;                   ///< Object sub-fields
  bool allow_auto = false;              ///< the string "auto" is accepted for Integer/Number

  static Field integer(std::string key, std::string help);
  static Field number(std::string key, std::string unit, std::string help);
  static Field boolean(std::string key, std::string help);
  static Field string(std::string key, std::string help);
  static Field choice(std::string key, std::vector<std::string> allowed, std::string help);
  static Field number_map(std::string key, std::vector<std::string> keys, std::string unit, std::string help);
  static Field object(std::string key, FieldList children, std::string help);

  Field& with_default(nlohmann::json v);
  Field& at_least(double v);
  Field& above(double v);
  Field& at_most(double v);
  Field& below(double v);
  Field& or_auto();
};

/// Checks `obj` (at JSON pointer `path`) against `fields`: unknown keys (with a "did you mean"), types,
/// ranges, allowed values; fills defaults in place. Throws ScenarioError naming the offending path.
void apply_schema(nlohmann::json& obj, const std::string& path, const FieldList& fields);

/// Human description of what a field accepts, e.g. "integer >= 1" or "one of: gpipe, 1f1b".
std::string describe_allowed(const Field& f);

/// The candidate closest to `word` by edit distance, or "" if none is close (distance > max(2, len/3)).
std::string closest_match(const std::string& word, const std::vector<std::string>& candidates);

}  // namespace llmsim::scenario
