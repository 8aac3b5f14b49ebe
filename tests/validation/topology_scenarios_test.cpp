// Every topology kind runs the default training scenario end to end (scenarios/topologies/), through the CLI; a
// topology changes only the communication: the same layout on another network has the same compute time.
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <nlohmann/json.hpp>

#include "../support/scenarios.hpp"

namespace {

/// summary.json of scenarios/topologies/<name>.json.
nlohmann::json run_topology(const std::string& name) {
  char dir[] = "/tmp/llmsim-topo-XXXXXX";
  const std::string root = mkdtemp(dir), out = root + "/out";
  const std::string cmd = std::string(LLMSIM_BINARY) + " run " +
                          llmsim::test::source_path("scenarios/topologies/" + name + ".json") + " --out " + out +
                          " --log-level warn > /dev/null";
  EXPECT_EQ(std::system(cmd.c_str()), 0) << cmd;
  std::ifstream in(out + "/summary.json");
  const auto s = nlohmann::json::parse(in);
  std::system(("rm -rf " + root).c_str());
  return s;
}

/// Seconds per iteration the GPU computes (kernels and the optimizer), whatever the network.
double compute_time(const nlohmann::json& s) {
  const auto& b = s["time_breakdown_s"];
  return b["gemm"].get<double>() + b["attention"].get<double>() + b["elementwise"].get<double>() +
         b["optimizer"].get<double>();
}

}  // namespace

class TopologyScenario : public ::testing::TestWithParam<const char*> {};

TEST_P(TopologyScenario, RunsTheDefaultTrainingEndToEnd) {
  const auto s = run_topology(GetParam());
  EXPECT_EQ(s["status"], "ok");
  EXPECT_LT(s["hardware_tflops_per_gpu"].get<double>(), 312.0);                   // below the A100 bf16 peak
}

INSTANTIATE_TEST_SUITE_P(AllKinds, TopologyScenario,
                         ::testing::Values("fat-tree", "clos3", "torus", "dragonfly", "nvlink-mesh", "wafer-mesh",
                                           "nop-tree", "simgrid-xml"));

TEST(TopologyScenarios, TheSameLayoutComputesAlikeAndTheWidestCutIsFastest) {
  // fat-tree, clos3, torus and dragonfly run one layout (4 nodes, tp 2, pp 2, batch 64): the same kernels, so the
  // same compute time; only the network's time differs. The fat-tree's cut carries half the nodes' NICs (2 nodes
  // x 8 x 200 Gb/s x network efficiency 0.92 = 368 GB/s), twice clos3's and the torus's and 8x the dragonfly's:
  // no network is faster than it, and the narrowest is the slowest. nvlink-mesh and simgrid-xml share another
  // layout.
  const auto fat_tree = run_topology("fat-tree");
  EXPECT_NEAR(fat_tree["bisection_bandwidth_GBps"].get<double>(), 2 * 8 * 25 * 0.92, 1e-9);
  double slowest = 0;
  std::string slowest_name;
  for (const char* other : {"clos3", "torus", "dragonfly"}) {
    const auto s = run_topology(other);
    EXPECT_NEAR(compute_time(s), compute_time(fat_tree), 1e-9 * compute_time(fat_tree)) << other;
    EXPECT_LT(s["bisection_bandwidth_GBps"].get<double>(), fat_tree["bisection_bandwidth_GBps"].get<double>()) << other;
    EXPECT_GE(s["iteration_time_s"].get<double>(), fat_tree["iteration_time_s"].get<double>()) << other;
    if (s["iteration_time_s"].get<double>() > slowest) slowest = s["iteration_time_s"], slowest_name = other;
  }
  EXPECT_EQ(slowest_name, "dragonfly");
  const auto mesh = run_topology("nvlink-mesh"), xml = run_topology("simgrid-xml");
  EXPECT_NEAR(compute_time(mesh), compute_time(xml), 1e-9 * compute_time(mesh));
  EXPECT_TRUE(xml["bisection_bandwidth_GBps"].is_null());  // an XML platform's cut is not derived
}
