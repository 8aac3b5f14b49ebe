// Markdown printer of the scenario reference (docs/scenario-reference.md).
#include <cctype>
#include <sstream>

#include "llmsim/scenario/reference.hpp"
#include "llmsim/util/error.hpp"

namespace llmsim::scenario {

namespace {

std::string join(const std::vector<std::string>& v, const std::string& sep, const std::string& quote = "") {
  std::string out;
  for (const auto& s : v) out += (out.empty() ? "" : sep) + quote + s + quote;
  return out;
}

/// Text for Markdown: "<name>" is not an HTML tag ("<=" stays), a pipe does not end a table cell.
std::string text(const std::string& s) {
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) {
    const bool tag = s[i] == '<' && i + 1 < s.size() && (std::isalpha(static_cast<unsigned char>(s[i + 1])) || s[i + 1] == '/');
    out += s[i] == '|' ? "\\|" : tag ? "&lt;" : std::string(1, s[i]);
  }
  return out;
}

/// A help text as a sentence: capital first letter, full stop.
std::string sentence(const std::string& s) {
  if (s.empty()) return s;
  return text(std::string(1, static_cast<char>(std::toupper(s[0]))) + s.substr(1) + (s.back() == '.' ? "" : "."));
}

/// A node's heading; `member` names the family member whose parameter it is ("" = none), since members may
/// share parameter names.
std::string title(const ReferenceNode& n, const std::string& member = "") {
  return (n.path.empty() ? "Top level" : n.path) + (member.empty() ? "" : " (" + member + ")");
}

/// GitHub's heading anchor: lower case, punctuation other than '-' and '_' dropped, spaces as '-'.
std::string anchor(const std::string& heading) {
  std::string out;
  for (char c : heading) {
    if (std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_') out += static_cast<char>(std::tolower(c));
    if (c == ' ') out += '-';
  }
  return out;
}

std::string link(const ReferenceNode& n, const std::string& member = "") {
  return "[" + title(n, member) + "](#" + anchor(title(n, member)) + ")";
}

std::string type_text(const ReferenceNode& n) {
  if (n.is_family()) return "family";
  switch (n.field.type) {
    case FieldType::Integer: return "integer";
    case FieldType::Number: return "number";
    case FieldType::Boolean: return "boolean";
    case FieldType::String: return "string";
    case FieldType::Enum: return "enum";
    case FieldType::NumberMap: return "map of numbers";
    case FieldType::Object: return "object";
  }
  return "";
}

std::string range_text(const Field& f) {
  std::string s;
  if (f.min) s += std::string(f.min_exclusive ? "> " : ">= ") + format_reference_number(*f.min);
  if (f.max) s += std::string(f.min ? " and " : "") + (f.max_exclusive ? "< " : "<= ") + format_reference_number(*f.max);
  if (s.empty()) s = "any";
  return s + (f.allow_zero ? ", or `0`" : "") + (f.allow_auto ? ", or `\"auto\"`" : "");
}

std::string names_of(const ReferenceNode& family) {
  std::vector<std::string> names;
  for (const auto& m : family.members) names.push_back(m.name);
  return join(names, ", ", "`");
}

std::string allowed_text(const ReferenceNode& n, const std::string& member) {
  if (n.is_family()) return names_of(n) + "; see " + link(n);
  const Field& f = n.field;
  switch (f.type) {
    case FieldType::Integer:
    case FieldType::Number: return range_text(f);
    case FieldType::Boolean: return "`true`, `false`";
    case FieldType::String: return "any";
    case FieldType::Enum: return join(f.allowed, ", ", "`");
    case FieldType::NumberMap:
      return "keys " + join(f.allowed, ", ", "`") + "; values " + (f.min ? ">= " + plain_number(*f.min) : std::string("> 0"));
    case FieldType::Object:
      return std::string(n.presets.empty() ? "" : "a preset name or an object; ") + "see " + link(n, member);
  }
  return "";
}

std::string default_text(const ReferenceNode& n) {
  if (n.is_family()) return "`" + dump_default(n.children.front().field) + "`";
  if (!n.field.default_value) return "required";
  return "`" + dump_default(n.field) + "`";
}

void table(std::ostream& out, const std::vector<ReferenceNode>& rows, const std::string& member = "") {
  if (rows.empty()) {
    out << "No parameters.\n\n";
    return;
  }
  out << "| key | type | unit | default | allowed | description |\n|---|---|---|---|---|---|\n";
  for (const auto& r : rows)
    out << "| `" << r.path << "` | " << type_text(r) << " | " << text(r.field.unit) << " | " << text(default_text(r))
        << " | " << text(allowed_text(r, member)) << " | " << text(r.field.help) << " |\n";
  out << "\n";
}

std::string heading(int level, const std::string& text) { return std::string(level, '#') + " " + text + "\n\n"; }

void section(std::ostream& out, const ReferenceNode& n, int level, const std::string& member = "");

/// The object and family fields among `rows`, each under its own heading.
void subsections(std::ostream& out, const std::vector<ReferenceNode>& rows, int level, const std::string& member = "") {
  for (const auto& r : rows)
    if (r.field.type == FieldType::Object || r.is_family()) section(out, r, level, member);
}

void family(std::ostream& out, const ReferenceNode& n, int level) {
  out << heading(level, title(n)) << sentence(n.field.help) << " Written as `{\"name\": \"<member>\", <its parameters>}` or as "
      << "the bare member name; absent = " << default_text(n) << ".\n\n";
  table(out, n.children);
  out << "| member | description | parameters |\n|---|---|---|\n";
  for (const auto& m : n.members) {
    std::vector<std::string> keys;
    for (const auto& p : m.params) keys.push_back(p.field.key);
    out << "| `" << m.name << "` | " << text(m.description) << " | " << (keys.empty() ? "none" : join(keys, ", ", "`"))
        << " |\n";
  }
  out << "\n";
  for (const auto& m : n.members) {
    if (m.params.empty()) continue;
    out << heading(level + 1, title(n) + " = " + m.name) << sentence(m.description) << "\n\n";
    table(out, m.params, m.name);
    subsections(out, m.params, level + 2, m.name);
  }
}

/// The presets of a preset section, each lacking required fields with them ("`selene` (no `nodes`: give it
/// beside \"preset\")").
std::string preset_list(const ReferenceNode& n) {
  std::vector<std::string> names;
  for (const auto& p : n.presets) {
    const auto lacking = n.preset_needs.find(p);
    names.push_back("`" + p + "`" + (lacking == n.preset_needs.end() ? "" : " (no " + join(lacking->second, ", ", "`") +
                                                                                ": give it beside \"preset\")"));
  }
  return join(names, ", ");
}

void section(std::ostream& out, const ReferenceNode& n, int level, const std::string& member) {
  if (n.is_family()) return family(out, n, level);
  out << heading(level, title(n, member));
  if (!n.path.empty()) out << sentence(n.field.help);
  if (!n.kinds.empty()) out << " Only in scenarios of kind " << join(n.kinds, ", ", "`") << ".";
  if (!n.presets.empty())
    out << " A preset section: the bare name of a preset in `configs/" << n.preset_folder << "/`, or `{\"preset\": "
        << "<name>, <fields overriding the preset's>}`, or all fields. Presets: " << preset_list(n) << ".";
  out << (n.path.empty() ? "" : "\n\n");
  table(out, n.children, member);
  // The top level's sections are level-2 headings too.
  subsections(out, n.children, n.path.empty() ? level : level + 1, member);
}

std::string family_index(const ReferenceNode& n) {
  std::string out;
  if (n.is_family())
    out += "| " + link(n) + " | " + default_text(n) + " | " + names_of(n) + " |\n";
  for (const auto& c : n.children) out += family_index(c);
  return out;
}

}  // namespace

std::string reference_markdown(const ReferenceNode& root) {
  std::ostringstream out;
  out << "# Scenario reference\n\n"
      << "Every field `llmsim run` and `llmsim validate` accept, generated by `llmsim schema` from the validator's own "
         "tables (`src/scenario/sections.cpp` and the parameter table of every registered strategy); "
         "`tests/scenario/reference_test.cpp` fails when this file is stale. Do not edit it: regenerate it and the "
         "JSON Schema with\n\n"
      << "```sh\nbuild/llmsim schema > docs/scenario-reference.md\n"
         "build/llmsim schema --format json-schema > docs/scenario.schema.json\n```\n\n"
      << "**Reading the tables.** *key* is the dotted path `--set` takes (`--set serving.kv_cache.block_size=32`). "
         "*unit* is the unit of the JSON value, also in the key name (`nic_Gbps`, `latency_us`). *default* "
         "`required` means the field has no default; a preset section may leave it to its preset. `\"auto\"` is "
         "derived from other fields as the description says. Unknown keys are errors (with a \"did you mean\"). "
         "`scenario.resolved.json` of a run shows every value after defaults.\n\n"
      << "**Families.** A family field names a registered member, `{\"name\": \"interleaved-1f1b\", "
         "\"virtual_stages\": 2}` or just `\"gpipe\"`; the parameters allowed beside `name` are the chosen member's "
         "(`llmsim list strategies|routing|faults|serving|topologies`).\n\n"
      << "**Editors.** `docs/scenario.schema.json` (JSON Schema draft 2020-12) gives completion and checks; in VS Code: "
         "`\"json.schemas\": [{\"fileMatch\": [\"scenarios/**/*.json\"], \"url\": \"./docs/scenario.schema.json\"}]` "
         "(a scenario may not contain a `$schema` key).\n\n"
      << "| family | default | members |\n|---|---|---|\n"
      << family_index(root) << "\n";
  section(out, root, 2);
  return out.str();
}

}  // namespace llmsim::scenario
