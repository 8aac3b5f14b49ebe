// A MoE run's trace names its all-to-all exchanges (their events refer to collectives, not to compute costs)
// and is valid JSON, also with one expert-parallel rank.
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
};
}  // namespace

TEST_F(MoeTrace, ExchangesAreNamedOnTheCommunicationStream) {
  const auto trace = trace_of("--set training.global_batch=16");
  EXPECT_GT(count(trace, "ep dispatch"), 0);
  EXPECT_GT(count(trace, "ep combine"), 0);
}

TEST_F(MoeTrace, OneExpertParallelRankStillWritesAValidTrace) {
  const auto trace = trace_of("--set training.global_batch=16 --set parallelism.ep=1 --set model.moe.experts=8 --set model.moe.top_k=1");
  EXPECT_GT(count(trace, "ep dispatch"), 0);
}
