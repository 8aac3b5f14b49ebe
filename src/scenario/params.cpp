#include "llmsim/scenario/params.hpp"

#include <stdexcept>

#include "llmsim/scenario/field_json.hpp"

namespace llmsim::scenario {

using nlohmann::json;

UnitScale unit_scale(const std::string& unit) {
  static const std::map<std::string, UnitScale> kUnits = {
      {"", {}},
      {"fraction", {}},
      {"ratio", {}},
      {"factor", {}},
      {"us", {Dimension::Time, 1e-6}},
      {"ms", {Dimension::Time, 1e-3}},
      {"s", {Dimension::Time, 1}},
      {"h", {Dimension::Time, 3600}},
      {"bytes", {Dimension::Bytes, 1}},
      {"MB", {Dimension::Bytes, 1e6}},
      {"GiB", {Dimension::Bytes, 1024.0 * 1024 * 1024}},
      {"GB/s", {Dimension::BytesPerSecond, 1e9}},
      {"Gbit/s", {Dimension::BytesPerSecond, 1e9 / 8}},
      {"1/s", {Dimension::PerSecond, 1}},
      {"elements", {Dimension::Count, 1}},
      {"billions", {Dimension::Count, 1e9}},
      {"TFLOP/s", {Dimension::FlopsPerSecond, 1e12}},
  };
  const auto it = kUnits.find(unit);
  if (it == kUnits.end()) throw std::logic_error("unit \"" + unit + "\" is not in the unit table (scenario/params.cpp)");
  return it->second;
}

namespace {

const char* type_word(FieldType t) {
  switch (t) {
    case FieldType::Integer: return "an integer";
    case FieldType::Number: return "a number";
    case FieldType::Boolean: return "a boolean";
    case FieldType::String: return "a string";
    case FieldType::Enum: return "a choice";
    case FieldType::NumberMap: return "a number map";
    case FieldType::Object: return "an object";
  }
  return "?";
}

Params::Value value_of(const json& v, const Field& f, const std::string& owner) {
  Params::Value out;
  out.type = f.type;
  out.unit = f.unit;
  if (f.allow_auto && v.is_string()) {
    out.is_auto = true;
    return out;
  }
  const double scale = unit_scale(f.unit).factor;
  switch (f.type) {
    case FieldType::Integer: out.number = v.get<double>(); break;
    case FieldType::Number: out.number = v.get<double>() * scale; break;
    case FieldType::Boolean: out.number = v.get<bool>() ? 1 : 0; break;
    case FieldType::String:
    case FieldType::Enum: out.text = v.get<std::string>(); break;
    case FieldType::NumberMap:
      for (const auto& [k, x] : v.items()) out.numbers[k] = x.get<double>() * scale;
      break;
    case FieldType::Object: out.object = std::make_shared<Params>(to_params(v, f.children, owner + "." + f.key)); break;
  }
  return out;
}

}  // namespace

Params to_params(const json& obj, const FieldList& fields, const std::string& owner) {
  std::map<std::string, Params::Value> values;
  for (const auto& f : fields)
    if (obj.contains(f.key)) values[f.key] = value_of(obj.at(f.key), f, owner);
  return Params(owner, std::move(values));
}

Params::Params(std::string owner, std::map<std::string, Value> values)
    : owner_(std::move(owner)), values_(std::move(values)) {}

const Params::Value& Params::value(const std::string& key, FieldType type, const char* getter) const {
  const auto it = values_.find(key);
  if (it == values_.end()) throw std::logic_error(owner_ + " has no parameter \"" + key + "\" (read by " + getter + ")");
  const Value& v = it->second;
  if (v.type != type)
    throw std::logic_error(owner_ + " parameter \"" + key + "\" (unit \"" + v.unit + "\") is " + type_word(v.type) +
                           ", not " + type_word(type) + " (read by " + getter + ")");
  if (v.is_auto)
    throw std::logic_error(owner_ + " parameter \"" + key + "\" is \"auto\" (check is_auto before " + getter + ")");
  return v;
}

double Params::in(const std::string& key, Dimension d, const char* getter) const {
  const Value& v = value(key, FieldType::Number, getter);
  if (unit_scale(v.unit).dimension != d)
    throw std::logic_error(owner_ + " parameter \"" + key + "\" is in \"" + v.unit + "\", which " + getter +
                           " does not read");
  return v.number;
}

int Params::integer(const std::string& key) const {
  return static_cast<int>(value(key, FieldType::Integer, "integer").number);
}
double Params::number(const std::string& key) const { return in(key, Dimension::None, "number"); }
double Params::seconds(const std::string& key) const { return in(key, Dimension::Time, "seconds"); }
double Params::bytes(const std::string& key) const { return in(key, Dimension::Bytes, "bytes"); }
double Params::bytes_per_second(const std::string& key) const {
  return in(key, Dimension::BytesPerSecond, "bytes_per_second");
}
double Params::per_second(const std::string& key) const { return in(key, Dimension::PerSecond, "per_second"); }
double Params::count(const std::string& key) const { return in(key, Dimension::Count, "count"); }
bool Params::flag(const std::string& key) const { return value(key, FieldType::Boolean, "flag").number != 0; }
const std::string& Params::text(const std::string& key) const {
  const auto it = values_.find(key);
  const bool is_enum = it != values_.end() && it->second.type == FieldType::Enum;
  return value(key, is_enum ? FieldType::Enum : FieldType::String, "text").text;
}
const std::map<std::string, double>& Params::number_map(const std::string& key) const {
  return value(key, FieldType::NumberMap, "number_map").numbers;
}
const Params& Params::object(const std::string& key) const { return *value(key, FieldType::Object, "object").object; }

bool Params::is_auto(const std::string& key) const {
  const auto it = values_.find(key);
  if (it == values_.end()) throw std::logic_error(owner_ + " has no parameter \"" + key + "\" (read by is_auto)");
  return it->second.is_auto;
}

std::vector<std::string> Params::keys() const {
  std::vector<std::string> out;
  for (const auto& [k, v] : values_) out.push_back(k);
  return out;
}

void Params::set_number(const std::string& key, double new_value) {
  const auto it = values_.find(key);
  if (it == values_.end() || it->second.type != FieldType::Number)
    throw std::logic_error(owner_ + " has no Number parameter \"" + key + "\" (set by set_number)");
  Value& v = it->second;
  v.is_auto = false;
  v.number = new_value;
}

}  // namespace llmsim::scenario
