// End to end: serving trace.json streamed event by event, restricted to a window of batch start times
// (serving.trace_from_s, trace_to_s) and to trace_max_steps per replica.
#include <map>

#include "../support/cli.hpp"

namespace {
using namespace llmsim::test;

/// The complete ("X") events of trace.json in output directory `out`.
std::vector<json> slices(const fs::path& out) {
  std::vector<json> x;
  const json trace = json::parse(read_file(out / "trace.json"));
  for (const auto& e : trace["traceEvents"])
    if (e["ph"] == "X") x.push_back(e);
  return x;
}

TEST_F(Cli, ServingTraceHoldsTheBatchesStartingInsideItsWindow) {
  const std::string scenario = "'" + source("scenarios/regression/serving-vllm.json") + "' --set output.trace=true";
  ASSERT_EQ(run("run " + scenario + " --out all").code, 0);
  ASSERT_EQ(run("run " + scenario + " --out window --set serving.trace_from_s=2 --set serving.trace_to_s=5").code, 0);
  ASSERT_EQ(run("run " + scenario + " --out few --set serving.trace_max_steps=3").code, 0);
  const auto all = slices(dir_ / "all"), window = slices(dir_ / "window"), few = slices(dir_ / "few");
  size_t inside = 0;
  for (const auto& e : all) inside += e["ts"].get<double>() >= 2e6 && e["ts"].get<double>() < 5e6;
  ASSERT_GT(inside, 0u);
  EXPECT_LT(inside, all.size());
  EXPECT_EQ(window.size(), inside);
  for (const auto& e : window) {
    EXPECT_GE(e["ts"].get<double>(), 2e6);
    EXPECT_LT(e["ts"].get<double>(), 5e6);
  }
  std::map<int, int> per_replica;
  for (const auto& e : few) ++per_replica[e["tid"].get<int>()];
  for (const auto& [replica, n] : per_replica) EXPECT_EQ(n, 3) << replica;
}

TEST_F(Cli, AnEmptyTraceWindowIsAnError) {
  expect_input_error(run("validate '" + source("scenarios/regression/serving-vllm.json") +
                         "' --set serving.trace_from_s=20 --set serving.trace_to_s=10"),
                     "/serving/trace_to_s: the trace window ends at 10.0 s, not after its start");
}

}  // namespace
