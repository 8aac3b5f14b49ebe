#include "llmsim/regress/compare.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <set>

namespace llmsim::regress {

const char* verdict_name(Verdict v) {
  switch (v) {
    case Verdict::Ok: return "ok";
    case Verdict::Better: return "better";
    case Verdict::Worse: return "WORSE";
    case Verdict::New: return "new";
    case Verdict::Missing: return "missing";
  }
  return "?";
}

namespace {

Row judge(Row r, double tolerance) {
  if (!r.baseline) {
    r.verdict = Verdict::New;
    return r;
  }
  if (!r.now) {
    r.verdict = Verdict::Missing;
    return r;
  }
  const double base = *r.baseline, now = *r.now;
  if (now == base) {
    r.change = 0;
  } else if (base == 0) {
    r.change = now > 0 ? std::numeric_limits<double>::infinity() : -std::numeric_limits<double>::infinity();
  } else {
    r.change = (now - base) / std::fabs(base);
  }
  Better better = Better::Lower;
  direction_of(r.metric, better);  // a metric produced now is always known
  const double worse_by = better == Better::Lower ? r.change : -r.change;
  r.verdict = worse_by > tolerance ? Verdict::Worse : worse_by < -tolerance ? Verdict::Better : Verdict::Ok;
  return r;
}

std::string number(const std::optional<double>& v) {
  if (!v) return "-";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.6g", *v);
  return buf;
}

std::string change_text(const Row& r) {
  if (!r.baseline || !r.now) return "-";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%+.2f%%", 100 * r.change);
  return buf;
}

}  // namespace

std::vector<Row> compare(const SuiteMetrics& baseline, const SuiteMetrics& now, double tolerance) {
  std::set<std::pair<std::string, std::string>> keys;
  for (const auto* side : {&baseline, &now})
    for (const auto& [scenario, metrics] : *side)
      for (const auto& m : metrics) keys.insert({scenario, m.first});
  auto lookup = [](const SuiteMetrics& s, const std::string& scenario, const std::string& metric) -> std::optional<double> {
    const auto it = s.find(scenario);
    if (it == s.end()) return std::nullopt;
    const auto m = it->second.find(metric);
    return m == it->second.end() ? std::nullopt : std::optional<double>(m->second);
  };
  std::vector<Row> rows;
  for (const auto& [scenario, metric] : keys) {
    Row r;
    r.scenario = scenario;
    r.metric = metric;
    r.baseline = lookup(baseline, scenario, metric);
    r.now = lookup(now, scenario, metric);
    rows.push_back(judge(r, tolerance));
  }
  return rows;
}

bool fails(const std::vector<Row>& rows) {
  return std::any_of(rows.begin(), rows.end(),
                     [](const Row& r) { return r.verdict == Verdict::Worse || r.verdict == Verdict::Missing; });
}

std::string format_table(const std::vector<Row>& rows, double tolerance) {
  std::vector<std::vector<std::string>> cells = {{"scenario", "metric", "baseline", "now", "change", "verdict"}};
  int count[5] = {0, 0, 0, 0, 0};
  for (const auto& r : rows) {
    cells.push_back({r.scenario, r.metric, number(r.baseline), number(r.now), change_text(r), verdict_name(r.verdict)});
    ++count[static_cast<int>(r.verdict)];
  }
  std::vector<size_t> width(cells[0].size(), 0);
  for (const auto& line : cells)
    for (size_t c = 0; c < line.size(); ++c) width[c] = std::max(width[c], line[c].size());
  std::string out;
  for (const auto& line : cells) {
    std::string text;
    for (size_t c = 0; c < line.size(); ++c) {
      const bool right = c >= 2 && c <= 4;  // numbers
      const std::string pad(width[c] - line[c].size(), ' ');
      text += (c ? "  " : "") + (right ? pad + line[c] : line[c] + (c + 1 < line.size() ? pad : ""));
    }
    out += text + "\n";
  }
  char tol[32];
  std::snprintf(tol, sizeof tol, "%g%%", 100 * tolerance);
  out += std::to_string(rows.size()) + " metrics: " + std::to_string(count[0]) + " ok, " + std::to_string(count[1]) +
         " better, " + std::to_string(count[2]) + " WORSE, " + std::to_string(count[3]) + " new, " +
         std::to_string(count[4]) + " missing (tolerance " + tol + ")\n";
  return out;
}

}  // namespace llmsim::regress
