#pragma once
// The family registry: every strategy family (a scenario field naming one registered member of an interface,
// with that member's parameters) is registered once (strategy/family.hpp, LLMSIM_FAMILY) and everything that
// enumerates families reads it: validation (loader: each family's field table and its cross-field check),
// the typed Scenario (Scenario::choices), `llmsim list`, the scenario reference and the JSON Schema.
#include <functional>
#include <string>
#include <vector>

#include "llmsim/scenario/scenario.hpp"
#include "llmsim/scenario/schema.hpp"

namespace llmsim::scenario {

/// A registered member of a family: its name, description and parameter table.
struct FamilyMember {
  std::string name;
  std::string description;
  FieldList params;
};

/// Where `llmsim list <topic>` shows a family: under `heading`, at `order` among that topic's families.
struct FamilyListing {
  std::string topic;    ///< strategies, topologies, routing, faults, serving (main.cpp's `list` choices)
  std::string heading;  ///< e.g. "pipeline_schedule" or "faults.process (failure processes)"
  int order = 0;
};

/// A family: field `key` of top-level section `section` ("" = the scenario itself) names a registered member,
/// as {"name": ..., <that member's parameters>} or as the bare name; absent = `fallback`.
struct Family {
  std::string section;
  std::string key;
  std::string fallback;
  std::string help;
  int order = 0;  ///< position in validation, the typed Scenario and the reference (ascending)
  FamilyListing listing;
  std::vector<FamilyMember> (*members)() = nullptr;  ///< every registered member, sorted by name
  /// Builds the chosen member from a resolved scenario (its cross-field rules; throws ScenarioError).
  std::function<void(const Scenario&)> check;
  /// "strategies.pipeline_schedule", "routing": the key of Scenario::choices and of `--set`.
  std::string path() const { return section.empty() ? key : section + "." + key; }
};

/// Every registered family, by `order`.
std::vector<Family> families();

/// Registers a family for its lifetime (a static one for the program's; a test's for the test's). A second
/// family at the same path is a programming error (std::logic_error).
class FamilyRegistration {
 public:
  explicit FamilyRegistration(Family family);
  ~FamilyRegistration();
  FamilyRegistration(const FamilyRegistration&) = delete;
  FamilyRegistration& operator=(const FamilyRegistration&) = delete;

 private:
  std::string path_;
};

}  // namespace llmsim::scenario
