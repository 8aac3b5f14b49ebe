#pragma once
// What a parameter sweep varies: the scenario file, --set overrides shared by every point, grid axes (their
// cross product) and zip axes (walked together, crossed with the grid). Values are kept as the text of a
// --set value ("4", "1f1b", "{\"name\": \"stp\"}") and parsed by scenario::apply_override when a point is
// built, so a sweep value means exactly what the same --set means.
// Errors (ScenarioError, exit 2): a malformed axis "key=v1,v2", an empty value list, a key given twice, zip
// axes of different lengths, a malformed sweep file.
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace llmsim::sweep {

/// One varied key: "parallelism.tp" with the value texts {"2", "4", "8"}, and where the user gave it (for errors
/// only; two axes with the same key and values are the same axis wherever they were given).
struct Axis {
  std::string key;
  std::vector<std::string> values;
  std::string flag = "--grid";  ///< "--grid" or "--zip"
  std::string file;             ///< the sweep file that holds the axis, or "" for the command line
  bool operator==(const Axis& o) const { return key == o.key && values == o.values; }
  /// The axis as errors name it: "--grid parallelism.tp", or "sweep.json: /grid/parallelism.tp".
  std::string name() const;
  /// Value `i` as errors name it: "--grid parallelism.tp=3", or "sweep.json: /grid/parallelism.tp/1".
  std::string value_name(size_t i) const;
};

struct SweepDefinition {
  std::string scenario;            ///< absolute path of the scenario file
  nlohmann::json scenario_json;    ///< its content when the sweep was defined (a changed file is a changed sweep)
  std::vector<std::string> sets;   ///< "json.path=value" applied to every point, before the point's values
  std::vector<Axis> grid, zip;

  /// Number of points: product of the grid sizes times the zip length (1 for no axes).
  size_t points() const;
  /// The --set assignments of point `index` (grid axes in order, the first slowest, then the zip axes).
  std::vector<std::string> point_sets(size_t index) const;
  /// Stored form (sweep.json) and back; from_json throws ScenarioError at `where` if `j` is not one.
  nlohmann::json to_json() const;
  static SweepDefinition from_json(const nlohmann::json& j, const std::string& where);
  /// "" if `other` defines the same sweep, else one sentence naming the first difference.
  std::string difference(const SweepDefinition& other) const;
};

/// Whether path `inner` is `outer` or lies under it, its keys joined by `separator` ('.' for a dotted sweep
/// key: "a.b.c" lies under "a.b", not under "a.bc"; '/' for a JSON pointer).
bool path_within(const std::string& inner, const std::string& outer, char separator);

/// Parses "key=v1,v2,..." (commas inside [], {} or "" do not split). `flag` ("--grid", "--zip") names the
/// option in errors.
Axis parse_axis(const std::string& text, const std::string& flag);

/// Builds a definition from the command line and an optional sweep file {"grid": {"k": [v, ...]},
/// "zip": {"k": [...]}, "set": {"k": v}} (file entries first, then the command line's; keys keep the file's
/// order). Checks keys are well formed and not repeated and the zip lengths agree.
SweepDefinition make_definition(const std::string& scenario, const std::vector<std::string>& sets,
                                const std::vector<std::string>& grid, const std::vector<std::string>& zip,
                                const std::string& sweep_file);

}  // namespace llmsim::sweep
