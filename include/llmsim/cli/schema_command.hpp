#pragma once
// `llmsim schema [--format markdown|json-schema]`: prints the scenario reference (scenario/reference.hpp).
#include <ostream>
#include <string>

namespace llmsim::cli {

/// Writes the Markdown reference (`format` "markdown") or the JSON Schema ("json-schema", indented by 2) to
/// `out`; returns the exit code 0. Any other format is a ScenarioError at "--format".
int schema_command(const std::string& format, std::ostream& out);

}  // namespace llmsim::cli
