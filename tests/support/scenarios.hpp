#pragma once
// Helpers shared by the tests: load shipped scenarios and build small ones.
#include <gtest/gtest.h>

#include <string>

#include "llmsim/scenario/loader.hpp"
#include "llmsim/util/error.hpp"

namespace llmsim::test {

inline std::string source_path(const std::string& relative) { return std::string(LLMSIM_TEST_SOURCE_DIR) + "/" + relative; }

/// A shipped scenario, resolved, with optional --set style overrides.
inline scenario::Scenario shipped(const std::string& relative, const std::vector<std::string>& overrides = {}) {
  return scenario::load_scenario(source_path(relative), overrides);
}

/// The ScenarioError `action` throws; a failed expectation (and an empty error) if it throws none.
template <class Action>
ScenarioError error_of(Action&& action) {
  try {
    action();
  } catch (const ScenarioError& e) {
    return e;
  }
  ADD_FAILURE() << "expected a ScenarioError";
  return ScenarioError("<none>", "no error");
}

}  // namespace llmsim::test
