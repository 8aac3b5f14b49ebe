// Every shipped scenario resolves (no stale field after a schema change), and its resolved form (what
// scenario.resolved.json holds) resolves again to itself, so that a run can be repeated from its output.
#include <gtest/gtest.h>

#include <filesystem>

#include "../support/scenarios.hpp"

TEST(ShippedScenarios, EveryScenarioFileResolvesAndItsResolvedFormResolvesToItself) {
  namespace fs = std::filesystem;
  int count = 0;
  for (const auto& e : fs::recursive_directory_iterator(llmsim::test::source_path("scenarios"))) {
    if (e.path().extension() != ".json") continue;
    if (e.path() == llmsim::test::source_path("scenarios/regression/baseline.json")) continue;  // llmsim regress's baseline
    try {
      const auto s = llmsim::scenario::load_scenario(e.path().string());
      EXPECT_EQ(llmsim::scenario::resolve(s.resolved, e.path().parent_path().string()).resolved, s.resolved) << e.path();
    } catch (const std::exception& err) {
      ADD_FAILURE() << e.path() << ": " << err.what();
    }
    ++count;
  }
  EXPECT_GE(count, 20);  // default, 10 validation rows, 9 topologies, 3 pipeline studies
}
