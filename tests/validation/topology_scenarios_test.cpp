// Every topology kind runs the default training scenario end to end (scenarios/topologies/), through the CLI.
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <nlohmann/json.hpp>

#include "../support/scenarios.hpp"

class TopologyScenario : public ::testing::TestWithParam<const char*> {};

TEST_P(TopologyScenario, RunsTheDefaultTrainingEndToEnd) {
  char dir[] = "/tmp/llmsim-topo-XXXXXX";
  const std::string out = std::string(mkdtemp(dir)) + "/out";
  const std::string cmd = std::string(LLMSIM_BINARY) + " run " +
                          llmsim::test::source_path(std::string("scenarios/topologies/") + GetParam() + ".json") +
                          " --out " + out + " --log-level warn > /dev/null";
  ASSERT_EQ(std::system(cmd.c_str()), 0) << cmd;
  std::ifstream in(out + "/summary.json");
  const auto s = nlohmann::json::parse(in);
  EXPECT_EQ(s["status"], "ok");
  EXPECT_GT(s["iteration_time_s"].get<double>(), 0.1);  // gpt-1.7b class work: far above any latency
  EXPECT_GT(s["hardware_tflops_per_gpu"].get<double>(), 50.0);
  EXPECT_LT(s["hardware_tflops_per_gpu"].get<double>(), 312.0);  // below the A100 peak
  std::system(("rm -rf " + out.substr(0, out.size() - 4)).c_str());
}

INSTANTIATE_TEST_SUITE_P(AllKinds, TopologyScenario,
                         ::testing::Values("fat-tree", "clos3", "torus", "dragonfly", "nvlink-mesh", "wafer-mesh",
                                           "nop-tree", "simgrid-xml"));
