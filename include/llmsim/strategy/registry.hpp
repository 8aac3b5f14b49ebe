#pragma once
// One registry per strategy family. A strategy registers itself with one line in its own .cpp:
//   LLMSIM_REGISTER(PipelineSchedule, "1f1b", "one-forward-one-backward (PipeDream-Flush)", fields, factory)
// Duplicate names are a programming error (std::logic_error at start-up); an unknown name in a scenario is a
// ScenarioError that lists the registered names.
#include <functional>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "llmsim/scenario/scenario.hpp"
#include "llmsim/scenario/schema.hpp"
#include "llmsim/util/error.hpp"

namespace llmsim::strategy {

template <class Interface>
class Registry {
 public:
  /// Builds the strategy from validated parameters; may throw ScenarioError for cross-field rules.
  using Factory = std::function<std::unique_ptr<Interface>(const scenario::Params& params, const scenario::Scenario&)>;
  struct Entry {
    std::string name;
    std::string description;
    scenario::FieldList params;  ///< the "name" field is implicit
    Factory factory;
  };

  static Registry& instance() {
    static Registry r;
    return r;
  }
  bool add(Entry e) {
    if (entries_.count(e.name)) throw std::logic_error("duplicate strategy name: " + e.name);
    std::string key = e.name;
    entries_.emplace(std::move(key), std::move(e));
    return true;
  }
  const Entry* find(const std::string& name) const {
    auto it = entries_.find(name);
    return it == entries_.end() ? nullptr : &it->second;
  }
  /// The member `choice` names, built from its parameters. Throws ScenarioError at `path`/name ("unknown
  /// <what> ...") for a name nobody registered (the schema normally rejects it first).
  std::unique_ptr<Interface> make(const scenario::StrategyChoice& choice, const scenario::Scenario& s,
                                  const std::string& path, const std::string& what) const {
    const Entry* entry = find(choice.name);
    if (!entry) throw ScenarioError(path + "/name", "unknown " + what + " \"" + choice.name + "\"");
    return entry->factory(choice.params, s);
  }
  std::vector<std::string> names() const {
    std::vector<std::string> out;
    for (const auto& [k, v] : entries_) out.push_back(k);
    return out;
  }
  const std::map<std::string, Entry>& entries() const { return entries_; }

 private:
  std::map<std::string, Entry> entries_;
};

}  // namespace llmsim::strategy

#define LLMSIM_REGISTRY_CONCAT2(a, b) a##b
#define LLMSIM_REGISTRY_CONCAT(a, b) LLMSIM_REGISTRY_CONCAT2(a, b)
/// Registers a strategy of `Interface` at static-initialisation time; the factory (a lambda, which may contain
/// commas) is the variadic tail.
#define LLMSIM_REGISTER(Interface, name, description, params, ...)                                       \
  static const bool LLMSIM_REGISTRY_CONCAT(llmsim_registered_, __LINE__) =                               \
      ::llmsim::strategy::Registry<Interface>::instance().add({name, description, params, __VA_ARGS__})
