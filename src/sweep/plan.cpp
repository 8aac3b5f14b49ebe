#include "llmsim/sweep/plan.hpp"

#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <fstream>
#include <optional>
#include <sstream>

#include "llmsim/report/output_dir.hpp"
#include "llmsim/scenario/loader.hpp"
#include "llmsim/scenario/json_text.hpp"
#include "llmsim/util/error.hpp"
#include "llmsim/util/limits.hpp"
#include "llmsim/util/interrupt.hpp"

namespace llmsim::sweep {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

json::json_pointer pointer_of(const std::string& key) {
  json::json_pointer p;
  std::stringstream parts(key);
  for (std::string part; std::getline(parts, part, '.');) p /= part;
  return p;
}

/// The value of "key=text" as --set parses it.
json parsed_value(const std::string& assignment) {
  json holder = json::object();
  scenario::apply_override(holder, assignment);
  return holder.at(pointer_of(assignment.substr(0, assignment.find('='))));
}

std::string point_id(size_t index, size_t total) {
  std::string id = std::to_string(index);
  const size_t width = std::max<size_t>(4, std::to_string(total > 0 ? total - 1 : 0).size());
  return std::string(width - std::min(width, id.size()), '0') + id;
}

/// The varied axis whose JSON path lies under `path` or holds it ("hardware" holds /hardware/preset), or nullptr.
const Axis* varied_axis_at(const SweepDefinition& d, const std::string& path) {
  for (const auto* axes : {&d.grid, &d.zip})
    for (const auto& a : *axes) {
      const std::string p = pointer_of(a.key).to_string();
      if (path_within(p, path, '/') || path_within(path, p, '/')) return &a;
    }
  return nullptr;
}

/// The axis assignment "key=value" as errors name it (the axis's value, not a --set).
std::string assignment_name(const Axis& a, const std::string& assignment) {
  const std::string value = assignment.substr(a.key.size() + 1);
  const auto at = std::find(a.values.begin(), a.values.end(), value);
  return a.value_name(static_cast<size_t>(at - a.values.begin()));
}

/// Resolves the scenario `base` with the assignments `sets` applied, as `llmsim run` would.
void resolve_with(json raw, const std::vector<std::string>& sets, const std::string& source_dir) {
  for (const auto& s : sets) scenario::apply_override(raw, s);
  scenario::resolve(std::move(raw), source_dir);
}

/// Each axis value on the valid point `valid` in place of the point's own: a value wrong in itself (its type,
/// range or allowed names: ValueError at or under the axis's path) is an error of the sweep, not a row.
void check_axis_values(const SweepDefinition& d, const json& base, const Point& valid, const std::string& source_dir) {
  for (const auto* axes : {&d.grid, &d.zip})
    for (const auto& a : *axes)
      for (size_t i = 0; i < a.values.size(); ++i) {
        std::vector<std::string> sets = valid.sets;
        const auto own = std::find_if(sets.begin(), sets.end(),
                                      [&](const std::string& s) { return s.compare(0, a.key.size() + 1, a.key + "=") == 0; });
        if (*own == a.key + "=" + a.values[i]) continue;  // the valid point's own value: resolved already
        *own = a.key + "=" + a.values[i];
        try {
          resolve_with(base, sets, source_dir);
        } catch (const ValueError& e) {
          if (path_within(e.path(), pointer_of(a.key).to_string(), '/')) throw ScenarioError(a.value_name(i), e.what());
        } catch (const ScenarioError&) {  // a combination this point cannot host: the sweep records it as a row
        }
      }
}

void write_plan(const SweepDir& dir, const std::vector<Point>& points) {
  std::string plan;
  for (const auto& p : points)
    plan += json{{"index", p.index}, {"id", p.id}, {"set", p.sets}, {"params", p.params}}.dump() + "\n";
  report::write_atomically(dir.plan().string(), plan);
}

std::string read_text(const fs::path& file) {
  std::ifstream in(file);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

}  // namespace

std::vector<Point> make_points(const SweepDefinition& d) {
  std::vector<Point> points;
  const size_t n = d.points();
  if (static_cast<double>(n) > limits::kMaxSweepPoints)
    throw ScenarioError("sweep", std::string("the sweep has ") + (n == SIZE_MAX ? "more than " : "") + std::to_string(n) +
                                     " points (the product of its axes' lengths); at most " +
                                     plain_number(limits::kMaxSweepPoints));
  for (size_t i = 0; i < n; ++i) {
    Point p{i, point_id(i, n), d.point_sets(i), json::object()};
    for (const auto& s : p.sets) {
      const std::string key = s.substr(0, s.find('='));
      try {
        p.params[key] = parsed_value(s);
      } catch (const ScenarioError& e) {  // a value of an axis, not of a --set: name the axis
        const Axis* axis = varied_axis_at(d, pointer_of(key).to_string());
        throw axis ? ScenarioError(assignment_name(*axis, s), e.message()) : e;
      }
    }
    points.push_back(p);
  }
  return points;
}

void check_points(const SweepDefinition& d, const std::vector<Point>& points) {
  json base = d.scenario_json;
  for (const auto& s : d.sets) scenario::apply_override(base, s);
  for (const auto& p : points) {  // every point's overrides applied first: a path that cannot be set is an error at once
    json raw = base;
    for (const auto& s : p.sets) scenario::apply_override(raw, s);
  }
  const std::string source_dir = fs::path(d.scenario).parent_path().string();
  std::optional<ScenarioError> first;
  for (const auto& p : points) {
    try {
      resolve_with(base, p.sets, source_dir);
    } catch (const ScenarioError& e) {
      if (!first) first = e;
      continue;
    }
    return check_axis_values(d, base, p, source_dir);
  }
  const Axis* axis = varied_axis_at(d, first->path());
  if (axis) throw ScenarioError(axis->name(), first->what());
  throw ScenarioError(first->path(), first->message() + " (in every point of the sweep)");
}

void init_dir(const SweepDir& dir, const SweepDefinition& d, const std::vector<Point>& points) {
  const std::string where = "--out " + dir.root.string();
  std::error_code ec;
  if (fs::exists(dir.definition())) {
    const std::string diff = load_definition(dir).difference(d);
    if (!diff.empty())
      throw ScenarioError(where, "holds a different sweep: " + diff +
                                     " (rerun the same definition to resume, or use another --out)");
    if (!fs::exists(dir.plan())) return write_plan(dir, points);  // the same definition gives the same plan
    load_points(dir);  // a damaged plan is an error before anything is reported as resumed
    return;
  }
  if (fs::exists(dir.root) && (!fs::is_directory(dir.root) || !fs::is_empty(dir.root, ec)))
    throw ScenarioError(where, "exists and is not a sweep directory (no sweep.json); choose a new or empty directory");
  fs::create_directories(dir.runs(), ec);
  if (ec) throw ScenarioError(where, "cannot create the sweep directory (" + ec.message() + ")");
  write_plan(dir, points);
  report::write_atomically(dir.definition().string(), d.to_json().dump(2) + "\n");  // last: its presence marks a complete plan
}

SweepDefinition load_definition(const SweepDir& dir) {
  if (!fs::exists(dir.definition()))
    throw ScenarioError(dir.root.string(), "not a sweep directory (no sweep.json; llmsim sweep writes one)");
  return SweepDefinition::from_json(scenario::read_json_file(dir.definition().string()), dir.definition().string());
}

std::vector<Point> load_points(const SweepDir& dir) {
  std::vector<Point> points;
  std::stringstream lines(read_text(dir.plan()));
  size_t number = 0;
  for (std::string line; std::getline(lines, line);) {
    const std::string where = dir.plan().string() + ":" + std::to_string(++number);  // each line is one JSON text
    try {
      const auto j = scenario::parse_json_text(line, where);
      points.push_back({j.at("index").get<size_t>(), j.at("id").get<std::string>(),
                        j.at("set").get<std::vector<std::string>>(), j.at("params")});
    } catch (const json::exception& e) {
      throw ScenarioError(where, "not a plan written by llmsim sweep: " + scenario::json_reason(e));
    }
  }
  if (points.empty()) throw ScenarioError(dir.plan().string(), "no points (missing or empty plan)");
  const size_t defined = fs::exists(dir.definition()) ? load_definition(dir).points() : points.size();
  for (size_t i = 0; i < points.size(); ++i)
    if (points[i].index != i)
      throw ScenarioError(dir.plan().string() + ":" + std::to_string(i + 1),
                          "point " + std::to_string(points[i].index) + " where point " + std::to_string(i) +
                              " belongs: not a plan written by llmsim sweep");
  if (points.size() != defined)
    throw ScenarioError(dir.plan().string(), std::to_string(points.size()) + " points where sweep.json defines " +
                                                 std::to_string(defined) + " (a damaged plan: remove it, and the "
                                                 "same sweep rewrites it and resumes)");
  return points;
}

}  // namespace llmsim::sweep
