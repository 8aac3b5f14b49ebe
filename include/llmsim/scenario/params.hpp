#pragma once
// The parameters of a family member (a topology, a schedule, a failure process, ...) as a typed view: built
// once in scenario/ from the validated JSON object and the member's field table, every number converted from
// its field's unit to SI base units by one table (unit_scale below). Keys keep their JSON spelling
// ("link_latency_us"); the values are SI (seconds, bytes, bytes/s, 1/s, counts).
//
// Getters by dimension; each checks the field's unit and throws std::logic_error (a programming error, naming
// the member, the key and the unit) for an unknown key, a getter of the wrong type or dimension, or a value
// that is "auto" (ask is_auto first):
//   integer   Integer fields                  number            Number fields without a unit ("", fraction,
//   seconds   us, ms, s, h                                      ratio, factor)
//   bytes     bytes, MB (1e6), GiB (2^30)     bytes_per_second  GB/s (1e9), Gbit/s (1e9 / 8)
//   per_second  1/s                           count             elements, billions (1e9)
//   flag      Boolean fields                  text              String and Enum fields
//   number_map  NumberMap fields (SI: TFLOP/s -> FLOP/s ...)    object            Object fields (nested view)
// No JSON type appears here: strategy/, platform/, serving/, ... read their parameters without nlohmann.
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "llmsim/scenario/schema.hpp"

namespace llmsim::scenario {

/// What a unit measures; each has one SI base unit.
enum class Dimension { None, Time, Bytes, BytesPerSecond, PerSecond, Count, FlopsPerSecond };

struct UnitScale {
  Dimension dimension = Dimension::None;
  double factor = 1;  ///< SI value = JSON value * factor
};
/// The unit table: "us" -> {Time, 1e-6}, "GB/s" -> {BytesPerSecond, 1e9}, ... Throws std::logic_error for a unit
/// it does not know (every unit of a field table must be in it; a test checks the shipped tables).
UnitScale unit_scale(const std::string& unit);

class Params {
 public:
  /// One parameter: its field's type and unit, and its value in SI units.
  struct Value {
    FieldType type = FieldType::Number;
    std::string unit;
    bool is_auto = false;                  ///< the string "auto" (or_auto fields)
    double number = 0;                     ///< Integer, Number (SI), Boolean (0 or 1)
    std::string text;                      ///< String, Enum
    std::map<std::string, double> numbers; ///< NumberMap (SI)
    std::shared_ptr<const Params> object;  ///< Object
  };

  Params() = default;
  /// `owner` names the member in error messages ("cluster.topology = torus").
  Params(std::string owner, std::map<std::string, Value> values);

  int integer(const std::string& key) const;
  double number(const std::string& key) const;
  double seconds(const std::string& key) const;
  double bytes(const std::string& key) const;
  double bytes_per_second(const std::string& key) const;
  double per_second(const std::string& key) const;
  double count(const std::string& key) const;
  bool flag(const std::string& key) const;
  const std::string& text(const std::string& key) const;
  const std::map<std::string, double>& number_map(const std::string& key) const;
  const Params& object(const std::string& key) const;
  bool is_auto(const std::string& key) const;
  bool has(const std::string& key) const { return values_.count(key) > 0; }
  /// The keys, sorted.
  std::vector<std::string> keys() const;
  const std::string& owner() const { return owner_; }

  /// Replaces the value of Number field `key` by `new_value` (a searched parameter, e.g. FlowMoE's S_p).
  void set_number(const std::string& key, double new_value);

 private:
  const Value& value(const std::string& key, FieldType type, const char* getter) const;
  double in(const std::string& key, Dimension d, const char* getter) const;
  std::string owner_;
  std::map<std::string, Value> values_;
};

}  // namespace llmsim::scenario
