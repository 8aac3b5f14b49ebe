// Megatron-LM SC'21 Table 1: every row within 8% of the published TFLOP/s per GPU and a mean absolute
// error of at most 4%, with the one A100-SXM4-80GB calibration (the simulation is deterministic).
// Runs the llmsim executable on scenarios/validation/*.json.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "../support/scenarios.hpp"

namespace {
struct Row {
  std::string model;
  double published;
};
std::vector<Row> table1() {
  std::ifstream in(llmsim::test::source_path("data/validation/megatron-lm-table1.csv"));
  std::string line;
  std::getline(in, line);
  std::vector<Row> rows;
  while (std::getline(in, line)) {
    std::vector<std::string> f;
    std::stringstream ss(line);
    for (std::string x; std::getline(ss, x, ',');) f.push_back(x);
    std::string p = f[0];
    if (p.size() > 2 && p.substr(p.size() - 2) == ".0") p = p.substr(0, p.size() - 2);
    rows.push_back({"gpt-" + p + "b", std::stod(f[8])});
  }
  return rows;
}
}  // namespace

TEST(Table1Validation, EveryRowWithin8PercentAndMeanWithin4Percent) {
  const auto rows = table1();
  ASSERT_EQ(rows.size(), 10u);
  char dir_template[] = "/tmp/llmsim-table1-XXXXXX";
  const std::string dir = mkdtemp(dir_template);
  double sum = 0;
  for (const auto& r : rows) {
    const std::string out = dir + "/" + r.model;
    const std::string cmd = std::string(LLMSIM_BINARY) + " run " +
                            llmsim::test::source_path("scenarios/validation/" + r.model + ".json") + " --out " + out +
                            " --set output.trace=false --log-level warn > /dev/null";
    ASSERT_EQ(std::system(cmd.c_str()), 0) << cmd;
    std::ifstream in(out + "/summary.json");
    const auto summary = nlohmann::json::parse(in);
    const double err = (summary["hardware_tflops_per_gpu"].get<double>() - r.published) / r.published;
    EXPECT_LE(std::fabs(err), 0.08) << r.model << ": simulated " << summary["hardware_tflops_per_gpu"] << " vs "
                                    << r.published;
    sum += std::fabs(err);
  }
  EXPECT_LE(sum / rows.size(), 0.04);
  std::system(("rm -rf " + dir).c_str());
}
