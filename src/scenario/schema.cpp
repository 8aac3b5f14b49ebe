#include "llmsim/scenario/schema.hpp"

#include "llmsim/scenario/field_json.hpp"
#include "llmsim/scenario/json_text.hpp"

#include <algorithm>
#include <cmath>
#include <sstream>
#include <stdexcept>
#include <type_traits>

#include "llmsim/util/error.hpp"

namespace llmsim::scenario {

using nlohmann::json;

namespace {
Field make(std::string key, FieldType type, std::string unit, std::string help) {
  Field f;
  f.key = std::move(key);
  f.type = type;
  f.unit = std::move(unit);
  f.help = std::move(help);
  return f;
}

std::string join(const std::vector<std::string>& v) {
  std::string out;
  for (const auto& s : v) out += (out.empty() ? "" : ", ") + s;
  return out;
}

std::string type_name(const json& v) {
  if (v.is_boolean()) return "a boolean";
  if (v.is_number_integer() || v.is_number_unsigned()) return "an integer";
  if (v.is_number()) return "a number";
  if (v.is_string()) return "a string";
  if (v.is_array()) return "an array";
  if (v.is_object()) return "an object";
  return "null";
}

void check_range(const Field& f, double x, const std::string& path) {
  if (f.allow_zero && x == 0) return;
  bool low = f.min && (f.min_exclusive ? x <= *f.min : x < *f.min);
  bool high = f.max && (f.max_exclusive ? x >= *f.max : x > *f.max);
  if (low || high || !std::isfinite(x))
    throw ValueError(path, "value " + plain_number(x) + " is out of range (" + describe_allowed(f) + ")");
}

/// An integer field: stored in 32 bits, so larger values are out of range, not wrapped; 3.0 is read as 3.
void check_integer(const Field& f, json& v, const std::string& path) {
  constexpr double kMaxInt = 2147483647.0;
  if (v.is_number() && std::fabs(v.get<double>()) > kMaxInt)
    throw ValueError(path, "value " + (v.is_number_float() ? plain_number(v.get<double>()) : v.dump()) +
                               " is out of range (" + describe_allowed(f) + ", and at most 2147483647)");
  if (v.is_number_float() && std::floor(v.get<double>()) == v.get<double>()) v = v.get<long long>();
  if (!v.is_number_integer() && !v.is_number_unsigned())
    throw ValueError(path, "expected " + describe_allowed(f) + ", got " + type_name(v));
  check_range(f, v.get<double>(), path);
}

/// An enum field's string among its allowed names (the nearest one suggested).
void check_enum(const Field& f, const std::string& s, const std::string& path) {
  if (std::find(f.allowed.begin(), f.allowed.end(), s) != f.allowed.end()) return;
  const std::string hint = closest_match(s, f.allowed);
  throw ValueError(path, "unknown value \"" + s + "\"" + (hint.empty() ? "" : "; did you mean \"" + hint + "\"?") +
                             " (one of: " + join(f.allowed) + ")");
}

/// A map of allowed keys to numbers >= the field's minimum (> 0 without one).
void check_number_map(const Field& f, json& v, const std::string& path) {
  for (auto& [k, x] : v.items()) {
    const std::string sub = path + "/" + pointer_token(k);
    if (std::find(f.allowed.begin(), f.allowed.end(), k) == f.allowed.end()) {
      const std::string hint = closest_match(k, f.allowed);
      throw ScenarioError(sub, std::string("unknown key") + (hint.empty() ? "" : "; did you mean \"" + hint + "\"?") +
                                   " (allowed keys: " + join(f.allowed) + ")");
    }
    const bool fits = x.is_number() && std::isfinite(x.get<double>()) &&
                      (f.min ? x.get<double>() >= *f.min : x.get<double>() > 0);
    if (!fits)
      throw ValueError(sub, "expected a number " + (f.min ? ">= " + plain_number(*f.min) : std::string("> 0")) +
                                (f.unit.empty() ? "" : " in " + f.unit) + ", got " +
                                (x.is_number() ? plain_number(x.get<double>()) : type_name(x)));
  }
}

void check_value(const Field& f, json& v, const std::string& path) {
  auto wrong_type = [&]() {
    throw ValueError(path, "expected " + describe_allowed(f) + ", got " + type_name(v));
  };
  if (f.allow_auto && v.is_string() && v.get<std::string>() == "auto") return;
  switch (f.type) {
    case FieldType::Integer:
      check_integer(f, v, path);
      break;
    case FieldType::Number:
      if (!v.is_number()) wrong_type();
      check_range(f, v.get<double>(), path);
      break;
    case FieldType::Boolean:
      if (!v.is_boolean()) wrong_type();
      break;
    case FieldType::String:
      if (!v.is_string()) wrong_type();
      break;
    case FieldType::Enum:
      if (!v.is_string()) wrong_type();
      check_enum(f, v.get<std::string>(), path);
      break;
    case FieldType::NumberMap:
      if (!v.is_object()) wrong_type();
      check_number_map(f, v, path);
      break;
    case FieldType::Object:
      if (!v.is_object()) wrong_type();
      apply_schema(v, path, f.children);
      break;
  }
}

size_t edit_distance(const std::string& a, const std::string& b) {
  std::vector<size_t> prev(b.size() + 1), cur(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) prev[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    cur[0] = i;
    for (size_t j = 1; j <= b.size(); ++j)
      cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1)});
    std::swap(prev, cur);
  }
  return prev[b.size()];
}
}  // namespace

Field Field::integer(std::string key, std::string help) { return make(std::move(key), FieldType::Integer, "", std::move(help)); }
namespace {
/// The physical upper bound of a number in `unit` (none for fractions and unknown units): no latency, bandwidth,
/// size or duration llmsim models comes near these, so a larger value is a typo, not a study.
std::optional<double> unit_bound(const std::string& unit) {
  static const std::vector<std::pair<std::string, double>> kBounds = {
      {"us", 1e7},  {"ms", 1e7},      {"s", 1e8},       {"h", 1e5},        {"GB/s", 1e6},    {"Gbit/s", 1e7},
      {"GiB", 1e6}, {"MB", 1e6},      {"ratio", 1e3},   {"factor", 1e6},   {"billions", 1e5}, {"elements", 1e9},
      {"bytes", 1e15}, {"1/s", 1e9}, {"", 1e6}};
  for (const auto& [u, bound] : kBounds)
    if (u == unit) return bound;
  return std::nullopt;
}
}  // namespace

Field Field::number(std::string key, std::string unit, std::string help) {
  Field f = make(std::move(key), FieldType::Number, std::move(unit), std::move(help));
  f.max = unit_bound(f.unit);
  return f;
}
Field Field::boolean(std::string key, std::string help) { return make(std::move(key), FieldType::Boolean, "", std::move(help)); }
Field Field::string(std::string key, std::string help) { return make(std::move(key), FieldType::String, "", std::move(help)); }
Field Field::choice(std::string key, std::vector<std::string> allowed, std::string help) {
  Field f = make(std::move(key), FieldType::Enum, "", std::move(help));
  f.allowed = std::move(allowed);
  return f;
}
Field Field::number_map(std::string key, std::vector<std::string> keys, std::string unit, std::string help) {
  Field f = make(std::move(key), FieldType::NumberMap, std::move(unit), std::move(help));
  f.allowed = std::move(keys);
  return f;
}
Field Field::object(std::string key, FieldList children, std::string help) {
  Field f = make(std::move(key), FieldType::Object, "", std::move(help));
  f.children = std::move(children);
  return f;
}
Field& Field::with_default(int v) { return with_default(static_cast<long long>(v)); }
Field& Field::with_default(long long v) {
  default_value = v;
  return *this;
}
Field& Field::with_default(double v) {
  default_value = v;
  return *this;
}
Field& Field::with_default(bool v) {
  default_value = v;
  return *this;
}
Field& Field::with_default(const char* v) { return with_default(std::string(v)); }
Field& Field::with_default(std::string v) {
  default_value = std::move(v);
  return *this;
}
Field& Field::with_default(EmptyObject v) {
  default_value = v;
  return *this;
}

json to_json(const DefaultValue& v) {
  return std::visit(
      [](const auto& x) {
        if constexpr (std::is_same_v<std::decay_t<decltype(x)>, EmptyObject>)
          return json::object();
        else
          return json(x);
      },
      v);
}

std::string dump_default(const Field& f) { return f.default_value ? to_json(*f.default_value).dump() : ""; }
Field& Field::at_least(double v) {
  min = v;
  min_exclusive = false;
  return *this;
}
Field& Field::above(double v) {
  min = v;
  min_exclusive = true;
  return *this;
}
Field& Field::at_most(double v) {
  max = v;
  max_exclusive = false;
  return *this;
}
Field& Field::below(double v) {
  max = v;
  max_exclusive = true;
  return *this;
}
Field& Field::or_auto() {
  allow_auto = true;
  return *this;
}
Field& Field::or_zero() {
  allow_zero = true;
  return *this;
}

std::string describe_allowed(const Field& f) {
  std::string s;
  switch (f.type) {
    case FieldType::Integer: s = "an integer"; break;
    case FieldType::Number: s = "a number"; break;
    case FieldType::Boolean: return "a boolean (true or false)";
    case FieldType::String: return "a string";
    case FieldType::Enum: return "one of: " + join(f.allowed);
    case FieldType::NumberMap: return "an object of numbers" + (f.unit.empty() ? "" : " in " + f.unit) + " with keys from: " + join(f.allowed);
    case FieldType::Object: return "an object";
  }
  if (f.min) s += (f.min_exclusive ? " > " : " >= ") + plain_number(*f.min);
  if (f.max) s += std::string(f.min ? " and" : "") + (f.max_exclusive ? " < " : " <= ") + plain_number(*f.max);
  if (!f.unit.empty()) s += " (" + f.unit + ")";
  if (f.allow_zero) s += ", or 0";
  if (f.allow_auto) s += ", or \"auto\"";
  return s;
}

const Field& field_at(const FieldList& fields, const std::vector<std::string>& keys) {
  const FieldList* level = &fields;
  const Field* found = nullptr;
  for (const auto& key : keys) {
    const auto it = std::find_if(level->begin(), level->end(), [&](const Field& f) { return f.key == key; });
    if (it == level->end()) throw std::logic_error("field_at: no field \"" + key + "\" in the schema");
    found = &*it;
    level = &found->children;
  }
  if (!found) throw std::logic_error("field_at: no keys");
  return *found;
}

std::string closest_match(const std::string& word, const std::vector<std::string>& candidates) {
  std::string best;
  size_t best_d = std::max<size_t>(2, word.size() / 3) + 1;
  for (const auto& c : candidates) {
    size_t d = edit_distance(word, c);
    if (d < best_d) {
      best_d = d;
      best = c;
    }
  }
  return best;
}

void apply_schema(json& obj, const std::string& path, const FieldList& fields) {
  if (!obj.is_object()) throw ValueError(path.empty() ? "/" : path, "expected an object, got " + type_name(obj));
  std::vector<std::string> keys;
  for (const auto& f : fields) keys.push_back(f.key);
  for (auto it = obj.begin(); it != obj.end(); ++it) {
    if (std::find(keys.begin(), keys.end(), it.key()) != keys.end()) continue;
    std::string hint = closest_match(it.key(), keys);
    throw ScenarioError(path + "/" + pointer_token(it.key()), std::string("unknown key") +
                                                   (hint.empty() ? "" : "; did you mean \"" + hint + "\"?") +
                                                   " (allowed keys: " + join(keys) + ")");
  }
  for (const auto& f : fields) {
    const std::string sub = path + "/" + f.key;
    if (!obj.contains(f.key)) {
      if (!f.default_value) throw ScenarioError(sub, "missing required field (" + describe_allowed(f) + ")");
      obj[f.key] = to_json(*f.default_value);
      if (f.type != FieldType::Object) continue;
    }
    check_value(f, obj[f.key], sub);
  }
}

}  // namespace llmsim::scenario
