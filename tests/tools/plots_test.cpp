// Each figure kind of tools/plot_*.py renders from the outputs of a shipped scenario (run with small settings)
// as a PNG and a PDF in one call: both files exist and are non-trivial (PNG > 10 kB with the PNG signature,
// PDF > 5 kB starting with %PDF-). Skipped when Debian's python3-matplotlib is not installed.
#include <cstdlib>
#include <map>
#include <tuple>

#include "../support/cli.hpp"

namespace llmsim::test {
namespace {

constexpr const char* kPython = "/usr/bin/python3";

class Plots : public Cli {
 protected:
  void SetUp() override {
    Cli::SetUp();
    // The set-up installs matplotlib (tools/setup.sh): without it the figures are untested, which must not pass.
    const std::string probe = std::string(kPython) + " -c 'import matplotlib' >/dev/null 2>&1";
    ASSERT_EQ(std::system(probe.c_str()), 0) << kPython << " cannot import matplotlib (tools/setup.sh installs "
                                                          "python3-matplotlib)";
  }

  /// Runs shipped `scenario` with `args` into `out` (relative to the temporary directory).
  void simulate(const std::string& scenario, const std::string& out, const std::string& args) {
    const auto r = run("run '" + source(scenario) + "' --out " + out + " --log-level warn " + args);
    ASSERT_EQ(r.code, 0) << r.err;
  }

  /// Runs tools/<tool> with `args` and --out fig.png --out fig.pdf; checks both figures.
  void expect_figures(const std::string& tool, const std::string& args) {
    const fs::path png = dir_ / "fig.png", pdf = dir_ / "fig.pdf";
    const std::string cmd = "cd '" + dir_.string() + "' && " + kPython + " '" + source("tools/" + tool) + "' " + args +
                            " --out '" + png.string() + "' --out '" + pdf.string() + "' >'" + (dir_ / "plot.log").string() +
                            "' 2>&1";
    const int status = std::system(cmd.c_str());
    ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << tool << " failed:\n" << read_file(dir_ / "plot.log");
    ASSERT_TRUE(fs::exists(png) && fs::exists(pdf)) << read_file(dir_ / "plot.log");
    EXPECT_GT(fs::file_size(png), 10u * 1024) << tool;
    EXPECT_GT(fs::file_size(pdf), 5u * 1024) << tool;
    EXPECT_EQ(read_file(png).substr(0, 8), std::string("\x89PNG\r\n\x1a\n", 8)) << tool;
    EXPECT_EQ(read_file(pdf).substr(0, 5), "%PDF-") << tool;
  }
};

TEST_F(Plots, TimeBreakdownBars) {
  simulate("scenarios/default.json", "a", "--set training.iterations=1 --set output.trace=false");
  simulate("scenarios/default.json", "b",
           "--set training.iterations=1 --set output.trace=false --set training.recompute=selective");
  expect_figures("plot_breakdown.py", "a b/summary.json --labels full,selective");
}

TEST_F(Plots, SimulatedAgainstPublishedBars) {
  // Two rows of Megatron-LM's Table 1 (data/validation): hardware TFLOP/s per GPU, simulated beside published.
  std::map<std::string, std::map<std::string, std::string>> rows;  // params_B -> column -> value
  std::vector<std::string> header;
  for (const auto& line : lines(read_file(source("data/validation/megatron-lm-table1.csv")))) {
    std::vector<std::string> cols;
    std::stringstream ss(line);
    for (std::string c; std::getline(ss, c, ',');) cols.push_back(c);
    if (header.empty()) {
      header = cols;
      continue;
    }
    for (size_t i = 0; i < cols.size() && i < header.size(); ++i) rows[cols[0]][header[i]] = cols[i];
  }
  std::string table = "label,simulated,published,unit\n";
  for (const std::string size : {"1.7", "3.6"}) {
    simulate("scenarios/validation/gpt-" + size + "b.json", size, "--set training.iterations=1 --set output.trace=false");
    const auto summary = json::parse(read_file(dir_ / size / "summary.json"));
    const std::string reference = rows[size]["tflops_per_gpu"];
    ASSERT_FALSE(reference.empty()) << "no Table 1 row for " << size << "B";
    table += "GPT " + size + "B," + std::to_string(summary["hardware_tflops_per_gpu"].get<double>()) + "," + reference +
             ",TFLOP/s per GPU\n";
  }
  expect_figures("plot_comparison.py", "'" + write("table.csv", table) + "'");
}

/// A figure drawn from one run: the shipped scenario, its small settings, the tool and its arguments.
struct OneRunFigure {
  const char* kind;
  const char* scenario;
  const char* settings;
  const char* tool;
  const char* args;
};

void PrintTo(const OneRunFigure& f, std::ostream* os) { *os << f.kind; }

class OneRunPlots : public Plots, public ::testing::WithParamInterface<OneRunFigure> {};

TEST_P(OneRunPlots, Renders) {
  const auto& f = GetParam();
  simulate(f.scenario, "run", f.settings);
  expect_figures(f.tool, f.args);
}

INSTANTIATE_TEST_SUITE_P(
    Kinds, OneRunPlots,
    ::testing::Values(
        OneRunFigure{"PipelineTimeline", "scenarios/default.json", "--set training.iterations=1", "plot_pipeline.py",
                     "run/trace.json --per-stage"},
        OneRunFigure{"LatencyCdfs", "scenarios/serving/llama2-70b-a100-conversation.json", "--set serving.max_requests=200",
                     "plot_serving.py", "run"},
        OneRunFigure{"ThroughputWithFailures", "scenarios/faults/mecefo-350m.json", "--set faults.horizon_h=2",
                     "plot_faults.py", "run"},
        OneRunFigure{"LinkUtilisationHeatmap", "scenarios/default.json",
                     "--set training.iterations=1 --set output.trace=false", "plot_links.py", "run"},
        OneRunFigure{"ExpertLoad", "scenarios/moe/olmoe-ep8-a100.json", "--set training.iterations=1 --set output.trace=false",
                     "plot_moe.py", "run"}),
    [](const ::testing::TestParamInfo<OneRunFigure>& info) { return std::string(info.param.kind); });

TEST_F(Plots, ABrokenRunIsOneLineNotATraceback) {
  // A summary.json cut short, one that is a JSON array, a run without one (a tool's own check) and a figure format
  // after a good one: exit 2 with one line naming the problem, and no figure written.
  fs::create_directories(dir_ / "cut");
  write("cut/summary.json", "{\"iteration_time_s\": 1.0, \"time_brea");
  fs::create_directories(dir_ / "list");
  write("list/summary.json", "[]");
  fs::create_directories(dir_ / "empty");
  for (const std::string& run : {"cut", "list", "empty"}) {
    const std::string cmd = "cd '" + dir_.string() + "' && " + kPython + " '" + source("tools/plot_breakdown.py") + "' " +
                            run + " --out a.png --out b.xyz >'" + (dir_ / "plot.log").string() + "' 2>&1";
    const int status = std::system(cmd.c_str());
    const std::string log = read_file(dir_ / "plot.log");
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 2) << log;
    EXPECT_EQ(lines(log).size(), 1u) << log;
    EXPECT_EQ(log.find("Traceback"), std::string::npos) << log;
    EXPECT_FALSE(fs::exists(dir_ / "a.png")) << run;
  }
}

TEST_F(Plots, AnEmptyTableIsOneLineNamingItNotAnEmptyFigure) {
  // A serving run whose requests.csv lost its rows (header kept) and a fault run whose throughput.csv is empty:
  // the tools said nothing and drew empty axes (exit 0); now exit 2 with one line naming the file.
  simulate("scenarios/serving/llama2-70b-a100-conversation.json", "serving", "--set serving.max_requests=50");
  const std::string header = lines(read_file(dir_ / "serving" / "requests.csv")).front();
  write("serving/requests.csv", header + "\n");
  simulate("scenarios/faults/mecefo-350m.json", "faults", "--set faults.horizon_h=1");
  write("faults/throughput.csv", "");
  for (const auto& [tool, run, file] : std::vector<std::tuple<std::string, std::string, std::string>>{
           {"plot_serving.py", "serving", "requests.csv"}, {"plot_faults.py", "faults", "throughput.csv"}}) {
    const std::string cmd = "cd '" + dir_.string() + "' && " + kPython + " '" + source("tools/" + tool) + "' " + run +
                            " --out a.png >'" + (dir_ / "plot.log").string() + "' 2>&1";
    const int status = std::system(cmd.c_str());
    const std::string log = read_file(dir_ / "plot.log");
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 2) << tool << ": " << log;
    EXPECT_EQ(lines(log).size(), 1u) << log;
    EXPECT_NE(log.find(file), std::string::npos) << log;
    EXPECT_FALSE(fs::exists(dir_ / "a.png")) << tool;
  }
}

}  // namespace
}  // namespace llmsim::test
