// Serving on H100 and H200 under the tensorrt-llm-0.17 engine against TensorRT-LLM 0.17's published offline
// throughput (data/validation/trtllm-0.17-offline-throughput-h100-h200.csv): the benchmark simulated as
// tools/calibrate_trtllm.py does (offline workload, one replica of the row's tp, FP8, 4 waves of the requests whose
// KV fits at once), on a representative subset: per GPU, every (model, tp) at a decode-heavy (128/2048), a
// balanced (1000/1000) and a prefill-heavy (5000/500) length pair. The whole table runs in the tool
// (docs/calibration.md); the bounds here are the subset's.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <sstream>

#include "../support/cli.hpp"
#include "llmsim/serving/scheduler.hpp"
#include "../serving/serving_scenario.hpp"
#include "../support/serving_bench.hpp"

namespace {
using llmsim::test::json;

/// The subset's bounds: its largest and mean |error| as tools/calibrate_trtllm.py reports them, rounded up.
constexpr double kLargestH100 = 0.095, kMeanH100 = 0.042;  // tool: 9.4%, 4.14% over 33 rows
constexpr double kLargestH200 = 0.095, kMeanH200 = 0.033;  // tool: 9.4%, 3.27% over 36 rows

struct Row {
  std::string model, gpu;
  int tp = 0, isl = 0, osl = 0;
  double published = 0;  ///< output tokens/s of the tp group
};

std::vector<Row> table() {
  std::ifstream in(llmsim::test::source("data/validation/trtllm-0.17-offline-throughput-h100-h200.csv"));
  std::vector<Row> out;
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#' || line.rfind("model,", 0) == 0) continue;
    std::stringstream ss(line);
    std::string f[7];
    for (auto& x : f) std::getline(ss, x, ',');
    out.push_back({f[0], f[2].substr(0, 4), std::stoi(f[1]), std::stoi(f[4]), std::stoi(f[5]), std::stod(f[6])});
  }
  return out;
}

bool in_subset(const Row& r) {
  return (r.isl == 128 && r.osl == 2048) || (r.isl == 1000 && r.osl == 1000) || (r.isl == 5000 && r.osl == 500);
}

class TrtllmOffline : public llmsim::test::Cli {
 protected:
  /// Simulated output tokens/s of `r`.
  double simulate(const Row& r) {
    json j = llmsim::test::trtllm_bench_json(r.model, r.gpu, r.tp, r.isl, r.osl, 1);
    const auto kv = llmsim::serving::replica_kv(llmsim::test::serving_scenario(j));
    const long fit = kv.blocks / ((r.isl + r.osl + kv.block_size - 1) / kv.block_size);
    j["serving"]["workload"]["requests"] = std::max(64L, 4 * std::min(4096L, fit));
    const auto res = run("run '" + write("s.json", j) + "' --out out --log-level warn");
    EXPECT_EQ(res.code, 0) << res.err;
    const json summary = json::parse(llmsim::test::read_file(dir_ / "out" / "summary.json"));
    std::filesystem::remove_all(dir_ / "out");
    return summary["serving"]["throughput"]["output_tokens_per_s"].get<double>();
  }

  void check(const std::string& gpu, double largest, double mean) {
    double sum = 0;
    int n = 0;
    for (const auto& r : table()) {
      if (r.gpu != gpu || !in_subset(r)) continue;
      const double e = simulate(r) / r.published - 1;
      EXPECT_LE(std::abs(e), largest) << r.model << " tp " << r.tp << " " << r.isl << "/" << r.osl << ": "
                                      << 100 * e << "%";
      sum += std::abs(e), ++n;
    }
    EXPECT_GT(n, 30);
    EXPECT_LE(sum / n, mean) << gpu << ": mean |error| " << 100 * sum / n << "% over " << n << " rows";
  }
};

TEST_F(TrtllmOffline, H100SubsetWithinItsBounds) { check("H100", kLargestH100, kMeanH100); }
TEST_F(TrtllmOffline, H200SubsetWithinItsBounds) { check("H200", kLargestH200, kMeanH200); }

}  // namespace
