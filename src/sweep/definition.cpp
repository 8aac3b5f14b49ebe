#include "llmsim/sweep/definition.hpp"

#include <algorithm>
#include <cstdint>

#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "llmsim/scenario/loader.hpp"
#include "llmsim/util/error.hpp"
#include "llmsim/scenario/json_text.hpp"
#include "llmsim/util/input_file.hpp"
#include "llmsim/util/limits.hpp"

namespace llmsim::sweep {

namespace fs = std::filesystem;
using nlohmann::json;
using nlohmann::ordered_json;

namespace {

std::string join(const std::vector<std::string>& v, const std::string& sep) {
  std::string s;
  for (const auto& x : v) s += (s.empty() ? "" : sep) + x;
  return s;
}

/// Splits at commas outside brackets, braces and double quotes.
std::vector<std::string> split_values(const std::string& text) {
  std::vector<std::string> out(1);
  int depth = 0;
  bool quoted = false;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (quoted && c == '\\' && i + 1 < text.size()) {
      out.back() += text.substr(i++, 2);
      continue;
    }
    if (c == '"') quoted = !quoted;
    if (!quoted && (c == '[' || c == '{')) ++depth;
    if (!quoted && (c == ']' || c == '}')) --depth;
    if (c == ',' && depth == 0 && !quoted) {
      out.emplace_back();
      continue;
    }
    out.back() += c;
  }
  return out;
}

void check_key(const std::string& key, const std::string& where) {
  if (key.empty() || key.front() == '.' || key.back() == '.' || key.find("..") != std::string::npos)
    throw ScenarioError(where, "expected a JSON path of non-empty keys separated by dots, e.g. parallelism.tp");
}

/// A sweep-file value as --set text: JSON text, which apply_override parses back to the same value.
std::string value_text(const ordered_json& v) { return v.dump(); }

std::vector<Axis> file_axes(const ordered_json& f, const std::string& section, const std::string& file) {
  std::vector<Axis> axes;
  if (!f.contains(section)) return axes;
  const std::string where = file + ": /" + section;
  if (!f[section].is_object()) throw ScenarioError(where, "expected an object {\"json.path\": [values, ...]}");
  for (const auto& [key, values] : f[section].items()) {
    check_key(key, where + "/" + key);
    if (!values.is_array() || values.empty())
      throw ScenarioError(where + "/" + key, "expected a non-empty array of values");
    Axis a{key, {}, "--" + section, file};
    for (const auto& v : values) a.values.push_back(value_text(v));
    axes.push_back(a);
  }
  return axes;
}

ordered_json read_sweep_file(const std::string& file) {
  const std::string text = util::read_input_file(file, file, limits::kMaxJsonFileBytes);
  scenario::parse_json_text(text, file);  // strictly: errors with line and column, repeated keys
  const auto f = ordered_json::parse(text);  // again, keeping the order of the axes
  if (!f.is_object()) throw ScenarioError(file, "a sweep file is a JSON object with \"grid\", \"zip\" and \"set\"");
  for (const auto& [key, value] : f.items())
    if (key != "grid" && key != "zip" && key != "set")
      throw ScenarioError(file + ": /" + key, "unknown key (allowed keys: grid, zip, set)");
  if (f.contains("set") && !f["set"].is_object())
    throw ScenarioError(file + ": /set", "expected an object {\"json.path\": value}");
  return f;
}

json axes_json(const std::vector<Axis>& axes) {
  json a = json::array();
  for (const auto& x : axes) a.push_back({{"key", x.key}, {"values", x.values}});
  return a;
}

std::vector<Axis> axes_from(const json& a, const std::string& flag) {
  std::vector<Axis> axes;
  for (const auto& x : a)
    axes.push_back({x.at("key").get<std::string>(), x.at("values").get<std::vector<std::string>>(), flag, ""});
  return axes;
}

std::string axes_difference(const std::vector<Axis>& mine, const std::vector<Axis>& other, const std::string& flag) {
  for (size_t i = 0; i < std::max(mine.size(), other.size()); ++i) {
    if (i < mine.size() && i < other.size() && mine[i] == other[i]) continue;
    const auto show = [&](const std::vector<Axis>& v) {
      return i < v.size() ? v[i].key + "=" + join(v[i].values, ",") : std::string("nothing");
    };
    return flag + " axis " + std::to_string(i + 1) + " is " + show(mine) + " in the existing sweep, now " + show(other);
  }
  return "";
}

/// Zipped lists of one length, whose points (the tuples of their i-th values) are each listed once.
void check_zipped_points(const SweepDefinition& d) {
  std::set<std::vector<std::string>> tuples;
  for (size_t i = 0; !d.zip.empty() && i < d.zip.front().values.size(); ++i) {
    std::vector<std::string> tuple;
    for (const auto& a : d.zip) {
      if (a.values.size() != d.zip.front().values.size())
        throw ScenarioError(a.name(), "has " + std::to_string(a.values.size()) + " values but " + d.zip.front().name() +
                                          " has " + std::to_string(d.zip.front().values.size()) +
                                          " (zipped lists need the same length)");
      tuple.push_back(a.values[i]);
    }
    if (!tuples.insert(tuple).second) throw ScenarioError(d.zip.front().value_name(i), "the zipped point is listed twice");
  }
}

/// One value per key and point: no key varied twice or inside another varied key (the point's values would
/// overwrite each other and its row would show values it did not run), none set by --set or the sweep file's
/// "set" inside a varied key (set first, the varied value would replace it) or set twice, no grid value listed
/// twice.
void check_keys(const SweepDefinition& d, const std::vector<std::string>& set_names) {
  std::vector<const Axis*> axes;
  for (const auto* list : {&d.grid, &d.zip})
    for (const auto& a : *list) {
      for (const Axis* other : axes)
        if (path_within(a.key, other->key, '.') || path_within(other->key, a.key, '.'))
          throw ScenarioError(a.name(), a.key == other->key ? "the key is varied twice"
                                                            : "varies a key that " + other->name() + " varies too");
      for (size_t i = 0; list == &d.grid && i < a.values.size(); ++i)  // zipped lists repeat values in tuples
        if (std::find(a.values.begin(), a.values.begin() + i, a.values[i]) != a.values.begin() + i)
          throw ScenarioError(a.value_name(i), "the value is listed twice");
      axes.push_back(&a);
    }
  std::set<std::string> fixed;  // the sweep file's "set" and --set: one value per key
  for (size_t i = 0; i < d.sets.size(); ++i) {
    const std::string key = d.sets[i].substr(0, d.sets[i].find('='));
    for (const Axis* a : axes)
      if (path_within(key, a->key, '.')) throw ScenarioError(set_names[i], "the key is also varied by " + a->name());
    if (!fixed.insert(key).second)
      throw ScenarioError(set_names[i], "the key is set twice (by the sweep file's \"set\" and --set, or by two --set)");
  }
}

}  // namespace

std::string Axis::name() const { return file.empty() ? flag + " " + key : file + ": /" + flag.substr(2) + "/" + key; }

std::string Axis::value_name(size_t i) const {
  return file.empty() ? name() + "=" + values.at(i) : name() + "/" + std::to_string(i);
}

size_t SweepDefinition::points() const {
  size_t n = zip.empty() ? 1 : zip.front().values.size();
  for (const auto& a : grid)  // saturates rather than wrapping around
    n = a.values.empty() || n <= SIZE_MAX / a.values.size() ? n * a.values.size() : SIZE_MAX;
  return n;
}

std::vector<std::string> SweepDefinition::point_sets(size_t index) const {
  std::vector<std::string> out(grid.size());
  size_t rest = index;
  if (!zip.empty()) {
    const size_t z = rest % zip.front().values.size();
    rest /= zip.front().values.size();
    for (const auto& a : zip) out.push_back(a.key + "=" + a.values[z]);
  }
  for (size_t g = grid.size(); g-- > 0;) {
    out[g] = grid[g].key + "=" + grid[g].values[rest % grid[g].values.size()];
    rest /= grid[g].values.size();
  }
  return out;
}

json SweepDefinition::to_json() const {
  return {{"scenario", scenario}, {"scenario_json", scenario_json}, {"set", sets}, {"grid", axes_json(grid)},
          {"zip", axes_json(zip)}, {"points", points()}};
}

SweepDefinition SweepDefinition::from_json(const json& j, const std::string& where) {
  try {
    SweepDefinition d;
    d.scenario = j.at("scenario").get<std::string>();
    d.scenario_json = j.at("scenario_json");
    d.sets = j.at("set").get<std::vector<std::string>>();
    d.grid = axes_from(j.at("grid"), "--grid");
    d.zip = axes_from(j.at("zip"), "--zip");
    return d;
  } catch (const json::exception& e) {
    throw ScenarioError(where, "not a sweep definition written by llmsim sweep: " + scenario::json_reason(e));
  }
}

std::string SweepDefinition::difference(const SweepDefinition& o) const {
  if (scenario != o.scenario) return "the scenario is " + scenario + " in the existing sweep, now " + o.scenario;
  if (scenario_json != o.scenario_json) return "the scenario file " + scenario + " changed since the sweep started";
  if (sets != o.sets)
    return "--set is [" + join(sets, " ") + "] in the existing sweep, now [" + join(o.sets, " ") + "]";
  const std::string g = axes_difference(grid, o.grid, "--grid");
  return g.empty() ? axes_difference(zip, o.zip, "--zip") : g;
}

bool path_within(const std::string& inner, const std::string& outer, char separator) {
  return inner == outer || inner.rfind(outer + separator, 0) == 0;
}

Axis parse_axis(const std::string& text, const std::string& flag) {
  const auto eq = text.find('=');
  if (eq == std::string::npos) throw ScenarioError(flag + " " + text, "expected json.path=value1,value2,...");
  Axis a{text.substr(0, eq), split_values(text.substr(eq + 1)), flag, ""};
  check_key(a.key, flag + " " + text);
  for (const auto& v : a.values)
    if (v.empty()) throw ScenarioError(flag + " " + text, "an empty value (values are separated by single commas)");
  return a;
}

SweepDefinition make_definition(const std::string& scenario, const std::vector<std::string>& sets,
                                const std::vector<std::string>& grid, const std::vector<std::string>& zip,
                                const std::string& sweep_file) {
  SweepDefinition d;
  d.scenario = fs::absolute(scenario).lexically_normal().string();
  d.scenario_json = scenario::read_json_file(d.scenario);
  std::vector<std::string> set_names;  // each of d.sets as errors name it
  if (!sweep_file.empty()) {
    const auto f = read_sweep_file(sweep_file);
    d.grid = file_axes(f, "grid", sweep_file);
    d.zip = file_axes(f, "zip", sweep_file);
    if (f.contains("set"))
      for (const auto& [key, value] : f["set"].items()) {
        check_key(key, sweep_file + ": /set/" + key);
        d.sets.push_back(key + "=" + value_text(value));
        set_names.push_back(sweep_file + ": /set/" + key);
      }
  }
  for (const auto& g : grid) d.grid.push_back(parse_axis(g, "--grid"));
  for (const auto& z : zip) d.zip.push_back(parse_axis(z, "--zip"));
  for (const auto& s : sets) d.sets.push_back(s), set_names.push_back("--set " + s);
  if (d.grid.empty() && d.zip.empty()) throw ScenarioError("sweep", "nothing varies (give --grid, --zip or --sweep-file)");
  check_keys(d, set_names);
  check_zipped_points(d);
  return d;
}

}  // namespace llmsim::sweep
