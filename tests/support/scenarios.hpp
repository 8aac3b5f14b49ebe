#pragma once
// Helpers shared by the tests: load shipped scenarios and build small ones.
#include <string>

#include "llmsim/scenario/loader.hpp"

namespace llmsim::test {

inline std::string source_path(const std::string& relative) { return std::string(LLMSIM_TEST_SOURCE_DIR) + "/" + relative; }

/// A shipped scenario, resolved, with optional --set style overrides.
inline scenario::Scenario shipped(const std::string& relative, const std::vector<std::string>& overrides = {}) {
  return scenario::load_scenario(source_path(relative), overrides);
}

}  // namespace llmsim::test
