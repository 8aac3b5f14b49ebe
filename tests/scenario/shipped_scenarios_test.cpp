// Every shipped scenario resolves (no stale field after a schema change).
#include <gtest/gtest.h>

#include <filesystem>

#include "../support/scenarios.hpp"

TEST(ShippedScenarios, EveryScenarioFileResolves) {
  namespace fs = std::filesystem;
  int count = 0;
  for (const auto& e : fs::recursive_directory_iterator(llmsim::test::source_path("scenarios"))) {
    if (e.path().extension() != ".json") continue;
    if (e.path() == llmsim::test::source_path("scenarios/regression/baseline.json")) continue;  // llmsim regress's baseline
    EXPECT_NO_THROW(llmsim::scenario::load_scenario(e.path().string())) << e.path();
    ++count;
  }
  EXPECT_GE(count, 20);  // default, 10 validation rows, 9 topologies, 3 pipeline studies
}
