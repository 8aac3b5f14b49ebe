#include "llmsim/regress/baseline.hpp"

#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "llmsim/regress/metrics.hpp"
#include "llmsim/report/output_dir.hpp"
#include "llmsim/util/error.hpp"
#include "llmsim/scenario/json_text.hpp"
#include "llmsim/util/input_file.hpp"
#include "llmsim/util/limits.hpp"

namespace llmsim::regress {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

const char* const kShape =
    "a baseline is {\"llmsim_version\": \"...\", \"tolerance\": 0.02, \"scenarios\": {name: {metric: number}}}; "
    "write one with llmsim regress SUITE --baseline FILE --update-baseline";

[[noreturn]] void bad(const std::string& path, const std::string& what) {
  throw ScenarioError(path, what + " (" + kShape + ")");
}

}  // namespace

Baseline read_baseline(const std::string& path) {
  std::error_code ec;
  if (!fs::exists(path, ec))
    throw ScenarioError(path, "no baseline file (give an existing baseline JSON file, or --update-baseline to write one)");
  const json j = scenario::parse_json_text(util::read_input_file(path, path, limits::kMaxJsonFileBytes), path);
  if (!j.is_object()) bad(path, "not a JSON object");
  for (const auto& [key, value] : j.items())
    if (key != "llmsim_version" && key != "tolerance" && key != "scenarios") bad(path, "/" + key + ": unknown key");
  Baseline b;
  if (!j.contains("llmsim_version") || !j["llmsim_version"].is_string()) bad(path, "/llmsim_version: missing or not a string");
  b.llmsim_version = j["llmsim_version"].get<std::string>();
  if (!j.contains("tolerance") || !j["tolerance"].is_number() || !(j["tolerance"].get<double>() >= 0) ||
      !(j["tolerance"].get<double>() <= 1))
    bad(path, "/tolerance: missing or not a fraction in [0, 1]");
  b.tolerance = j["tolerance"].get<double>();
  if (!j.contains("scenarios") || !j["scenarios"].is_object()) bad(path, "/scenarios: missing or not an object");
  for (const auto& [name, metrics] : j["scenarios"].items()) {
    if (!metrics.is_object()) bad(path, "/scenarios/" + name + ": not an object of metrics");
    auto& m = b.scenarios[name];
    for (const auto& [metric, value] : metrics.items()) {
      if (Better better; !direction_of(metric, better))
        throw ScenarioError(path, "/scenarios/" + name + "/" + metric + ": not a metric regress compares (one of: " +
                                      metric_names() + ")");
      if (!value.is_number() || !std::isfinite(value.get<double>()) || value.get<double>() < 0)
        bad(path, "/scenarios/" + name + "/" + metric + ": not a finite number >= 0 (every metric is a time, a rate "
                                                         "or a fraction)");
      m[metric] = value.get<double>();
    }
  }
  return b;
}

void write_baseline(const std::string& path, const Baseline& b) {
  json j = {{"llmsim_version", b.llmsim_version}, {"tolerance", b.tolerance}, {"scenarios", json::object()}};
  for (const auto& [name, metrics] : b.scenarios) j["scenarios"][name] = metrics;
  try {  // a regular file only, through a link its target (report::replaced_file)
    report::write_atomically(path, j.dump(2) + "\n");
  } catch (const ScenarioError& e) {
    throw ScenarioError("--baseline " + path, "cannot write the baseline file (" + std::string(e.what()) + ")");
  }
}

double parse_tolerance(const std::string& text) {
  const bool percent = !text.empty() && text.back() == '%';
  const std::string number = percent ? text.substr(0, text.size() - 1) : text;
  const auto v = decimal_number(number);
  const double fraction = v ? (percent ? *v / 100 : *v) : NAN;
  // A bare 1 would be 100% (no check at all) where "1" most likely means 1%: a fraction is below 1.
  if (!(fraction >= 0) || !(fraction <= 1) || (!percent && fraction >= 1))
    throw ScenarioError("--tolerance " + text, "not a tolerance (a percentage such as 2% or a fraction below 1 such "
                                               "as 0.02, at most 100%)");
  return fraction;
}

}  // namespace llmsim::regress
