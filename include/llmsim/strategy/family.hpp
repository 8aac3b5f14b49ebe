#pragma once
// One registration per strategy family, in the .cpp of the family's interface (docs/architecture.md, "How to
// add a strategy family"):
//   LLMSIM_FAMILY(PipelineSchedule, "strategies", "pipeline_schedule", "1f1b", "pipeline schedule", 20,
//                 {"strategies", "pipeline_schedule", 1}, check)
// section, key, default member, description, order (validation and reference), `llmsim list` placement and
// the cross-field check (nullptr: build the chosen member through the interface's Registry). The members
// register themselves with LLMSIM_REGISTER (registry.hpp).
#include <string>
#include <vector>

#include "llmsim/scenario/families.hpp"
#include "llmsim/strategy/registry.hpp"

namespace llmsim::strategy {

/// Every registered member of `Interface`'s registry, sorted by name.
template <class Interface>
std::vector<scenario::FamilyMember> members_of() {
  std::vector<scenario::FamilyMember> out;
  for (const auto& [name, e] : Registry<Interface>::instance().entries()) out.push_back({name, e.description, e.params});
  return out;
}

/// Builds the member the scenario chose for family `path` (its factory's cross-field rules).
template <class Interface>
void build_member(const scenario::Scenario& s, const std::string& path) {
  std::string pointer = "/" + path;
  for (auto& c : pointer)
    if (c == '.') c = '/';
  Registry<Interface>::instance().make(s.choice(path), s, pointer, path);
}

/// The family of `Interface` (see the top of this file for the arguments).
template <class Interface>
scenario::Family family_of(std::string section, std::string key, std::string fallback, std::string help, int order,
                           scenario::FamilyListing listing, void (*check)(const scenario::Scenario&) = nullptr) {
  scenario::Family f{std::move(section), std::move(key), std::move(fallback), std::move(help), order,
                     std::move(listing), &members_of<Interface>, check};
  if (!check) f.check = [path = f.path()](const scenario::Scenario& s) { build_member<Interface>(s, path); };
  return f;
}

}  // namespace llmsim::strategy

/// Registers the family of `Interface` at static-initialisation time (arguments of family_of after it).
#define LLMSIM_FAMILY(Interface, ...)                                                           \
  static const ::llmsim::scenario::FamilyRegistration LLMSIM_REGISTRY_CONCAT(llmsim_family_, __LINE__)( \
      ::llmsim::strategy::family_of<Interface>(__VA_ARGS__))
