#pragma once
// Helpers of the sweep tests: reading results.jsonl and results.csv, and the scenario arguments of a fast
// training sweep (scenarios/default.json, one iteration, 0.1-0.2 s per point).
#include <map>
#include <string>
#include <vector>

#include "../support/cli.hpp"

namespace llmsim::test {

/// `--set` arguments every fast sweep shares: default.json with one iteration and a plain schedule object.
inline std::string fast_sets() {
  return "--set 'strategies.pipeline_schedule={\"name\":\"1f1b\"}' --set training.iterations=1";
}

inline std::string fast_sweep(const std::string& axes, const std::string& out = "out") {
  return "sweep '" + source("scenarios/default.json") + "' " + fast_sets() + " " + axes + " --out " + out;
}

inline std::vector<json> jsonl(const fs::path& file) {
  std::vector<json> rows;
  for (const auto& l : lines(read_file(file))) rows.push_back(json::parse(l));
  return rows;
}

/// results.csv as header -> cell per row (the tables have no quoted commas in these tests).
inline std::vector<std::map<std::string, std::string>> csv_rows(const fs::path& file) {
  const auto text = lines(read_file(file));
  auto split = [](const std::string& l) {
    std::vector<std::string> cells(1);
    for (char c : l) {
      if (c == ',')
        cells.emplace_back();
      else
        cells.back().push_back(c);
    }
    return cells;
  };
  std::vector<std::map<std::string, std::string>> rows;
  const auto header = split(text.at(0));
  for (size_t i = 1; i < text.size(); ++i) {
    const auto cells = split(text[i]);
    EXPECT_EQ(cells.size(), header.size()) << text[i];
    std::map<std::string, std::string> row;
    for (size_t c = 0; c < header.size() && c < cells.size(); ++c) row[header[c]] = cells[c];
    rows.push_back(row);
  }
  return rows;
}

/// The largest element of a summary.json array (peak_memory_bytes per stage).
inline double max_of(const json& a) {
  double m = 0;
  for (const auto& v : a) m = std::max(m, v.get<double>());
  return m;
}

}  // namespace llmsim::test
