#pragma once
// A fixture for serving runs through the CLI: runs a scenario and reads back requests.csv and summary.json.
#include <cmath>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

#include "../support/cli.hpp"
#include "llmsim/serving/step_model.hpp"
#include "serving_scenario.hpp"

namespace llmsim::test {

/// [s] the `steps` decode steps of one sequence whose KV cache grows from `context` tokens.
inline double decode_steps(const serving::StepModel& m, int context, int steps) {
  double t = 0;
  for (int i = 0; i < steps; ++i) t += m.decode_time(1, context + i);
  return t;
}

/// One row of requests.csv: the numbers by column (NaN for an empty cell) and the status.
struct RequestRow {
  std::vector<double> v;
  std::string status;
  double operator[](size_t column) const { return v.at(column); }
};

class ServingRun : public Cli {
 protected:
  enum Col { kId, kArrival, kFirst, kFinished, kTtft, kTpot, kE2e, kPrompt, kOutput, kReplica, kPrefillReplica,
             kPreemptions, kTransfer, kStatus, kRequestedPrompt, kRequestedOutput };

  /// Runs scenario `j` (written to a file), expects success and returns requests.csv (header dropped); the
  /// summary goes to summary_, stderr to err_.
  std::vector<RequestRow> requests(const json& j, const std::string& args = "") {
    const std::string file = write("s" + std::to_string(n_) + ".json", j), out = "out" + std::to_string(n_++);
    const auto r = run("run '" + file + "' --out " + out + " " + args);
    EXPECT_EQ(r.code, 0) << r.err;
    err_ = r.err;
    summary_ = json::parse(read_file(dir_ / out / "summary.json"));
    std::vector<RequestRow> rows;
    const auto l = lines(read_file(dir_ / out / "requests.csv"));
    for (size_t i = 1; i < l.size(); ++i) {
      RequestRow row;
      std::stringstream ss(l[i]);
      for (std::string f; std::getline(ss, f, ',');) {
        if (row.v.size() == kStatus) row.status = f;
        row.v.push_back(f.empty() || row.v.size() == kStatus ? std::numeric_limits<double>::quiet_NaN() : std::stod(f));
      }
      rows.push_back(row);
    }
    return rows;
  }

  int n_ = 0;
  json summary_;
  std::string err_;
};

}  // namespace llmsim::test
