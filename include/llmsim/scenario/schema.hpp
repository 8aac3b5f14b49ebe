#pragma once
// Self-describing scenario fields: each field declares its type, unit, default, range, allowed values and
// help text in one place. The same table validates input, fills defaults and feeds `llmsim list` and the
// scenario reference (the ns-3 attribute idea, see docs/architecture.md). A family's header may declare its
// FieldList with this header alone: it does not include nlohmann (default values are a variant of their own,
// turned into JSON inside scenario/, field_json.hpp).
#include <optional>
#include <string>
#include <variant>
#include <vector>

namespace llmsim::scenario {

enum class FieldType { Integer, Number, Boolean, String, Enum, NumberMap, Object };

struct Field;
using FieldList = std::vector<Field>;

/// The default `{}` of an Object field (its children's defaults fill it).
struct EmptyObject {
  bool operator==(const EmptyObject&) const { return true; }
};
/// A field's default as written in JSON: an integer, a number, a boolean, a string (or "auto") or `{}`.
using DefaultValue = std::variant<long long, double, bool, std::string, EmptyObject>;

/// One key of a JSON object. A field without a default is required. `default_value` may be the string
/// "auto" for numeric fields whose value is derived from other fields (documented in `help`).
struct Field {
  std::string key;
  FieldType type = FieldType::Number;
  std::string unit;                     ///< unit of the JSON value, also in the key name ("_GBps")
  std::string help;
  std::optional<DefaultValue> default_value;  ///< absent = required
  std::optional<double> min, max;       ///< inclusive numeric range
  bool min_exclusive = false, max_exclusive = false;
  std::vector<std::string> allowed;     ///< Enum values, or NumberMap keys
  FieldList children;                   ///< Object sub-fields
  bool allow_auto = false;              ///< the string "auto" is accepted for Integer/Number
  bool allow_zero = false;              ///< 0 is accepted besides the range (0 = "not measured", "off")

  static Field integer(std::string key, std::string help);
  static Field number(std::string key, std::string unit, std::string help);
  static Field boolean(std::string key, std::string help);
  static Field string(std::string key, std::string help);
  static Field choice(std::string key, std::vector<std::string> allowed, std::string help);
  static Field number_map(std::string key, std::vector<std::string> keys, std::string unit, std::string help);
  static Field object(std::string key, FieldList children, std::string help);

  Field& with_default(int v);
  Field& with_default(long long v);
  Field& with_default(double v);
  Field& with_default(bool v);
  Field& with_default(const char* v);
  Field& with_default(std::string v);
  Field& with_default(EmptyObject v);
  Field& at_least(double v);
  Field& above(double v);
  Field& at_most(double v);
  Field& below(double v);
  Field& or_auto();
  Field& or_zero();
};

// apply_schema (a JSON object against a FieldList) is in field_json.hpp, with the JSON type.

/// The default of `f` as JSON text ("1", "0.5", "true", "\"auto\"", "{}"); "" for a required field.
std::string dump_default(const Field& f);

/// Human description of what a field accepts, e.g. "integer >= 1" or "one of: gpipe, 1f1b".
std::string describe_allowed(const Field& f);

/// The field reached from `fields` through object keys `keys` ({"kv_cache", "watermark"}); std::logic_error if there
/// is none (a programming error: the keys name a field of the schema).
const Field& field_at(const FieldList& fields, const std::vector<std::string>& keys);

/// The candidate closest to `word` by edit distance, or "" if none is close (distance > max(2, len/3)).
std::string closest_match(const std::string& word, const std::vector<std::string>& candidates);

}  // namespace llmsim::scenario
