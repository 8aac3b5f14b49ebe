// tools/compare_schedules.py on a scenario whose own schedule has parameters (NeMo's GPT-3 175B row: interleaved
// 1F1B with 6 virtual stages): the other schedules run with their defaults instead of inheriting parameters they do
// not take, and the scenario's own schedule keeps its virtual stages, so its row is the scenario as shipped.
#include <cstdlib>

#include "../support/cli.hpp"

namespace llmsim::test {
namespace {

constexpr const char* kScenario = "scenarios/validation/nemo-24.07-h100/gpt3-175b-128gpus.json";

/// The cells of the table row of `schedule` ("| pp | schedule | v | iteration [s] | ...").
std::vector<std::string> row_of(const std::string& table, const std::string& schedule) {
  for (const auto& line : lines(table)) {
    std::vector<std::string> cells;
    std::stringstream ss(line);
    for (std::string c; std::getline(ss, c, '|');) {
      const auto at = c.find_first_not_of(' ');
      cells.push_back(at == std::string::npos ? "" : c.substr(at));
    }
    if (cells.size() > 3 && cells[2].rfind(schedule + " ", 0) == 0) return cells;
  }
  return {};
}

TEST_F(Cli, CompareSchedulesKeepsTheScenariosOwnScheduleParameters) {
  const std::string cmd = "cd '" + dir_.string() + "' && /usr/bin/python3 '" + source("tools/compare_schedules.py") +
                          "' '" + source(kScenario) + "' --schedules 1f1b,interleaved-1f1b --reference 1f1b --llmsim '" +
                          LLMSIM_BINARY + "' >table.md 2>err.txt";
  const int status = std::system(cmd.c_str());
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << read_file(dir_ / "err.txt");
  const std::string table = read_file(dir_ / "table.md");
  const auto plain = row_of(table, "1f1b"), interleaved = row_of(table, "interleaved-1f1b");
  ASSERT_FALSE(plain.empty()) << table;
  ASSERT_FALSE(interleaved.empty()) << table;
  EXPECT_EQ(plain[3].substr(0, 1), "-");  // 1F1B has no virtual stages
  EXPECT_EQ(interleaved[3].substr(0, 1), "6");
  // The interleaved row is the shipped scenario: its iteration time is the one llmsim reports for it directly.
  const auto direct = run("run '" + source(kScenario) + "' --out direct --set output.trace=false --log-level warn");
  ASSERT_EQ(direct.code, 0) << direct.err;
  const double shipped = json::parse(read_file(dir_ / "direct" / "summary.json"))["iteration_time_s"].get<double>();
  EXPECT_NEAR(std::stod(interleaved[4]), shipped, 0.0006);
  EXPECT_GT(std::stod(plain[4]), shipped);  // one model chunk per stage: a larger bubble than 6 chunks
}

}  // namespace
}  // namespace llmsim::test
