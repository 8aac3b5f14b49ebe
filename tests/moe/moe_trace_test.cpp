// A MoE run's trace names its all-to-all exchanges (their events refer to collectives, not to compute costs)
// and is valid JSON, also with one expert-parallel rank.
#include <set>

#include "../support/cli.hpp"

namespace {
using namespace llmsim::test;

class MoeTrace : public Cli {
 protected:
  json trace_of(const std::string& extra) {
    const auto r = run("run '" + source("scenarios/moe/olmoe-ep8-a100.json") + "' --set cluster.nodes=1 " + extra + " --out out");
    EXPECT_EQ(r.code, 0) << r.err;
    return json::parse(read_file(dir_ / "out" / "trace.json"));
  }
  static int count(const json& trace, const std::string& prefix) {
    int n = 0;
    for (const auto& e : trace["traceEvents"])
      n += e["ph"] == "X" && e["name"].get<std::string>().rfind(prefix, 0) == 0;
    return n;
  }
  /// Complete events named exactly `name` on the threads called `thread`.
  static int count_on(const json& trace, const std::string& name, const std::string& thread) {
    std::set<std::pair<int, int>> threads;  // (pid, tid)
    for (const auto& e : trace["traceEvents"])
      if (e["ph"] == "M" && e["name"] == "thread_name" && e["args"]["name"] == thread)
        threads.insert({e["pid"].get<int>(), e["tid"].get<int>()});
    int n = 0;
    for (const auto& e : trace["traceEvents"])
      n += e["ph"] == "X" && e["name"] == name && threads.count({e["pid"].get<int>(), e["tid"].get<int>()});
    return n;
  }
};
}  // namespace

TEST_F(MoeTrace, ExchangesAreNamedOnTheCommunicationStream) {
  // OLMoE on one node: 8 GPUs (ep 8, dp 8), 16 MoE layers, a batch of 16 = 2 micro-batches of 1 per GPU, one
  // iteration. Each layer and micro-batch runs each of the four exchanges once per GPU on its communication thread,
  // and the compute thread waits for it once: 8 x 16 x 2 = 256 of each.
  const auto trace = trace_of("--set training.global_batch=16");
  for (const std::string exchange : {"ep dispatch", "ep combine", "ep combine grad", "ep dispatch grad"}) {
    EXPECT_EQ(count_on(trace, exchange, "communication"), 256) << exchange;
    EXPECT_EQ(count_on(trace, exchange + " (wait)", "compute"), 256) << exchange;
    EXPECT_EQ(count_on(trace, exchange, "compute"), 0) << exchange;
  }
}

TEST_F(MoeTrace, OneExpertParallelRankStillWritesAValidTrace) {
  const auto trace = trace_of("--set training.global_batch=16 --set parallelism.ep=1 --set model.moe.experts=8 --set model.moe.top_k=1");
  EXPECT_GT(count(trace, "ep dispatch"), 0);
}
