// FAL seen in a run's trace: under the braided STP schedule every unit's tp all-reduce is an event on the
// communication stream. Stage 1 of a pp-2 V placement holds chunks 1 and 2 (no embedding, no head), so each of
// its braided passes has 2 all-reduces per block with Megatron TP and 1 with FAL: half as many events.
#include "../support/cli.hpp"

namespace {
using namespace llmsim::test;

class FalTrace : public Cli {
 protected:
  /// "tp all-reduce" events of GPU 16 (the first of stage 1) in a small STP run with `variant`.
  int stage1_all_reduces(const std::string& variant) {
    const std::string scenario = "'" + source("scenarios/pipeline/stp-qwen2-12b-a800.json") + "'";
    const auto r = run("run " + scenario + " --set parallelism.tp_variant=" + variant +
                       " --set training.seq_len=1024 --set output.trace_max_gpus=17 --out " + variant);
    EXPECT_EQ(r.code, 0) << r.err;
    const auto trace = json::parse(read_file(dir_ / variant / "trace.json"));
    int n = 0;
    for (const auto& e : trace["traceEvents"]) n += e["ph"] == "X" && e["pid"] == 16 && e["name"] == "tp all-reduce";
    return n;
  }
};
}  // namespace

TEST_F(FalTrace, FalHalvesTheTensorParallelAllReducesOfBraidedBlocks) {
  const int megatron = stage1_all_reduces("megatron"), fal = stage1_all_reduces("fal");
  EXPECT_GT(fal, 0);
  EXPECT_EQ(megatron, 2 * fal);
}
