#include "llmsim/cli/schema_command.hpp"

#include "llmsim/scenario/reference.hpp"
#include "llmsim/util/error.hpp"

namespace llmsim::cli {

int schema_command(const std::string& format, std::ostream& out) {
  if (format != "markdown" && format != "json-schema")
    throw ScenarioError("--format", "unknown format \"" + format + "\" (markdown or json-schema)");
  const auto root = scenario::scenario_reference();
  if (format == "markdown")
    out << scenario::reference_markdown(root);
  else
    out << scenario::reference_json_schema(root).dump(2) << "\n";
  return 0;
}

}  // namespace llmsim::cli
