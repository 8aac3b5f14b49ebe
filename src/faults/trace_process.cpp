// The `trace` failure process: failures read from a CSV file (faults/failure_process.hpp).
#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>
#include <map>
#include <sstream>

#include "llmsim/faults/failure_process.hpp"
#include "llmsim/util/error.hpp"
#include "llmsim/util/input_file.hpp"
#include "llmsim/util/limits.hpp"

namespace llmsim::faults {
namespace {

/// Parses `file`: a header line, then "time_h,node,duration_h[,node|nic]" per line (blank lines and lines
/// starting with # are skipped). Any other line is an error naming the file and line.
std::vector<Failure> read_trace(const std::string& file) {
  util::check_input_file(file, "/faults/process/file", limits::kMaxDataFileBytes);
  std::ifstream in(file);
  if (!in) throw ScenarioError("/faults/process/file", "cannot open failure trace " + file);
  std::vector<Failure> out;
  std::string line;
  int number = 0;
  auto fail = [&](const std::string& why) {
    throw ScenarioError("/faults/process/file", file + ":" + std::to_string(number) + ": " + why + " (line \"" + line +
                                                    "\"; expected time_h,node,duration_h[,node|nic])");
  };
  while (std::getline(in, line)) {
    if (!line.empty() && line.back() == '\r') line.pop_back();  // CRLF files
    if (++number == 1) {
      if (line.rfind("time_h", 0) != 0 && line.rfind("\xEF\xBB\xBFtime_h", 0) != 0)
        fail("the first line must be the header time_h,node,duration_h[,target]");
      continue;
    }
    if (line.empty() || line[0] == '#') continue;
    std::stringstream row(line);
    std::string cell[3], target, extra;
    for (auto& c : cell)
      if (!std::getline(row, c, ',')) fail("fewer than 3 fields");
    if (std::getline(row, target, ',') || (!line.empty() && line.back() == ',')) {
      target.erase(target.find_last_not_of(" \t") + 1);
      target.erase(0, std::min(target.size(), target.find_first_not_of(" \t")));
      if (target != "node" && target != "nic") fail("the target \"" + target + "\" is neither node nor nic");
    }
    if (std::getline(row, extra, ',')) fail("more than 4 fields");
    double v[3];
    for (int i = 0; i < 3; ++i) {
      size_t used = 0;
      const bool decimal = cell[i].find_first_not_of(" \t0123456789.eE+-") == std::string::npos;
      try {
        v[i] = decimal ? std::stod(cell[i], &used) : std::nan("");
      } catch (const std::exception&) {
        fail("\"" + cell[i] + "\" is not a number");
      }
      if (!std::isfinite(v[i]) || cell[i].find_first_not_of(" \t", used) != std::string::npos)
        fail("\"" + cell[i] + "\" is not a finite decimal number");
    }
    if (v[0] < 0) fail("negative time");
    if (v[1] < 0 || v[1] != static_cast<int>(v[1])) fail("the node must be an integer >= 0");
    if (!(v[2] >= limits::kMinOutage_h)) fail("the duration must be >= " + plain_number(limits::kMinOutage_h) + " h");
    out.push_back({v[0] * 3600, static_cast<int>(v[1]), v[2] * 3600, target == "nic"});
  }
  if (number == 0) throw ScenarioError("/faults/process/file", file + " is empty (expected a header line)");
  return out;
}

class TraceProcess final : public FailureProcess {
 public:
  TraceProcess(std::vector<Failure> failures, const std::string& file) : failures_(std::move(failures)) {
    std::stable_sort(failures_.begin(), failures_.end(), [](const Failure& a, const Failure& b) { return a.time < b.time; });
    std::map<int, double> up_at;
    for (const auto& f : failures_) {
      if (up_at.count(f.node) && up_at[f.node] > f.time)
        throw ScenarioError("/faults/process/file", file + ": node " + std::to_string(f.node) + " fails at " +
                                                        std::to_string(f.time / 3600) + " h while still down");
      up_at[f.node] = f.time + f.duration;
    }
  }
  std::vector<Failure> draw(int, int, double horizon, std::mt19937_64&) const override {
    std::vector<Failure> out;
    for (const auto& f : failures_)
      if (f.time < horizon) out.push_back(f);
    return out;
  }
  /// The mean gap between the failures of the run (those before `horizon`); with one failure, or all at one time,
  /// the run's length over their count (Young/Daly's "auto" checkpoint interval stays finite and positive); with
  /// none, infinite (no checkpoints).
  double cluster_mtbf(int, int, double horizon) const override {
    std::vector<double> times;
    for (const auto& f : failures_)
      if (f.time < horizon) times.push_back(f.time);
    if (times.empty()) return std::numeric_limits<double>::infinity();
    const double gap = times.size() > 1 ? (times.back() - times.front()) / double(times.size() - 1) : 0;
    return gap > 0 ? gap : horizon / double(times.size());
  }

 private:
  std::vector<Failure> failures_;
};

LLMSIM_REGISTER(FailureProcess, "trace", "failures from a CSV file: header, then time_h,node,duration_h[,node|nic] per line",
                {scenario::Field::string("file", "CSV failure trace, relative to the scenario file")},
                [](const scenario::Params& p, const scenario::Scenario& s) {
                  std::filesystem::path file = p.text("file");
                  if (file.is_relative()) file = std::filesystem::path(s.source_dir) / file;
                  return std::make_unique<TraceProcess>(read_trace(file.string()), file.string());
                });

}  // namespace
}  // namespace llmsim::faults
