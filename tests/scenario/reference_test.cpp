// `llmsim schema`: the shipped docs/scenario-reference.md and docs/scenario.schema.json are its current output,
// the reference covers every key of every shipped scenario (resolved) and every registered family member, and
// the JSON Schema accepts the shipped scenarios (raw and resolved) and rejects what the validator rejects.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <set>
#include <sstream>

#include "../support/cli.hpp"
#include "../support/scenarios.hpp"
#include "llmsim/faults/failure_process.hpp"
#include "llmsim/moe/routing.hpp"
#include "llmsim/platform/topology.hpp"
#include "llmsim/scenario/reference.hpp"
#include "llmsim/serving/router.hpp"
#include "llmsim/serving/scheduler.hpp"
#include "llmsim/serving/workload.hpp"
#include "llmsim/strategy/expert_placement.hpp"
#include "llmsim/strategy/fault_tolerance.hpp"
#include "llmsim/strategy/moe_pipeline.hpp"
#include "llmsim/strategy/pipeline_schedule.hpp"

namespace {

using nlohmann::json;
namespace fs = std::filesystem;

const std::string kRegenerate =
    "regenerate with: build/llmsim schema > docs/scenario-reference.md && "
    "build/llmsim schema --format json-schema > docs/scenario.schema.json";

// ---- a validator of the JSON Schema subset `llmsim schema` emits (an unknown keyword is a failure) ----

bool is_type(const json& v, const std::string& type) {
  if (type == "object") return v.is_object();
  if (type == "string") return v.is_string();
  if (type == "boolean") return v.is_boolean();
  if (type == "number") return v.is_number();
  if (type == "integer") return v.is_number_integer() || (v.is_number_float() && v.get<double>() == std::floor(v.get<double>()));
  throw std::runtime_error("unexpected type " + type);
}

/// Whether `v` satisfies `schema`; `why` gets the JSON pointer of the first violation.
bool valid(const json& v, const json& schema, const std::string& path, std::string& why) {
  if (schema.is_boolean()) return schema.get<bool>() || (why = path + ": false schema", false);
  auto fail = [&](const std::string& what) { return why = path + ": " + what, false; };
  for (const auto& [kw, s] : schema.items()) {
    if (kw == "$schema" || kw == "title" || kw == "description" || kw == "default" || kw == "then") continue;
    if (kw == "type" && !is_type(v, s)) return fail("not " + s.get<std::string>());
    if (kw == "enum" && std::find(s.begin(), s.end(), v) == s.end()) return fail("not in enum");
    if (kw == "const" && v != s) return fail("not the const");
    if (kw == "minimum" && v.is_number() && v.get<double>() < s.get<double>()) return fail("below minimum");
    if (kw == "maximum" && v.is_number() && v.get<double>() > s.get<double>()) return fail("above maximum");
    if (kw == "exclusiveMinimum" && v.is_number() && v.get<double>() <= s.get<double>()) return fail("not above");
    if (kw == "exclusiveMaximum" && v.is_number() && v.get<double>() >= s.get<double>()) return fail("not below");
    if (kw == "required" && v.is_object())
      for (const auto& k : s)
        if (!v.contains(k.get<std::string>())) return fail("missing " + k.get<std::string>());
    if (kw == "properties" && v.is_object())
      for (const auto& [k, sub] : s.items())
        if (v.contains(k) && !valid(v[k], sub, path + "/" + k, why)) return false;
    if (kw == "additionalProperties" && v.is_object() && !s.get<bool>())
      for (const auto& [k, x] : v.items())
        if (!schema.at("properties").contains(k)) return fail("unknown key " + k);
    if (kw == "allOf")
      for (const auto& sub : s)
        if (!valid(v, sub, path, why)) return false;
    if (kw == "anyOf") {
      std::string ignored;
      if (std::none_of(s.begin(), s.end(), [&](const json& sub) { return valid(v, sub, path, ignored); }))
        return fail("no anyOf branch matches");
    }
    if (kw == "if") {
      std::string ignored;
      if (valid(v, s, path, ignored) && !valid(v, schema.at("then"), path, why)) return false;
    }
    static const std::set<std::string> kKnown = {"type", "enum", "const", "minimum", "maximum", "exclusiveMinimum",
                                                 "exclusiveMaximum", "required", "properties",
                                                 "additionalProperties", "allOf", "anyOf", "if"};
    if (!kKnown.count(kw)) throw std::runtime_error("keyword not handled by the test validator: " + kw);
  }
  return true;
}

json the_schema() { return json::parse(llmsim::scenario::reference_json_schema(llmsim::scenario::scenario_reference()).dump()); }

std::string the_markdown() { return llmsim::scenario::reference_markdown(llmsim::scenario::scenario_reference()); }

// ---- the Markdown reference, read back ----

/// The table row of `path` in `text` split into cells (key, type, unit, default, allowed, description); empty if
/// there is none.
std::vector<std::string> row_of(const std::string& text, const std::string& path) {
  for (const auto& line : llmsim::test::lines(text)) {
    if (line.rfind("| `" + path + "` |", 0) != 0) continue;
    std::vector<std::string> cells;
    std::stringstream ss(line.substr(2));
    for (std::string c; std::getline(ss, c, '|');) cells.push_back(c.substr(1, c.size() - 2));
    return cells;
  }
  return {};
}

/// The text under the heading that ends with `title`, up to the next heading of the same or a higher level.
std::string section_of(const std::string& md, const std::string& title) {
  std::string out;
  size_t level = 0;
  for (const auto& line : llmsim::test::lines(md)) {
    const size_t hashes = line.find_first_not_of('#');
    const bool heading = !line.empty() && line[0] == '#';
    if (level > 0 && heading && hashes <= level) break;
    if (level > 0) out += line + "\n";
    if (level == 0 && heading && line.size() > title.size() && line.compare(line.size() - title.size(), title.size(), title) == 0 &&
        line[line.size() - title.size() - 1] == ' ')
      level = hashes;
  }
  return out;
}

/// Every key below `path` of `v` has a row in `scope` (a family's parameters: in its member's section); a map
/// row lists every key of the map.
void expect_covered(const json& v, const std::string& path, const std::string& md, const std::string& scope,
                    const std::string& file) {
  for (const auto& [k, x] : v.items()) {
    const std::string p = path.empty() ? k : path + "." + k;
    const auto row = row_of(k == "name" ? md : scope, p);
    ASSERT_EQ(row.size(), 6u) << file << ": no row for " << p;
    if (row[1] == "map of numbers") {
      for (const auto& [key, n] : x.items()) EXPECT_NE(row[4].find("`" + key + "`"), std::string::npos) << p << "." << key;
    } else if (row[1] == "family") {
      const std::string member = section_of(md, p + " = " + x.at("name").get<std::string>());
      expect_covered(x, p, md, member.empty() ? scope : member, file);
    } else if (row[1] == "object") {
      expect_covered(x, p, md, scope, file);
    } else {
      EXPECT_FALSE(x.is_object()) << p;
    }
  }
}

/// The scenarios of the study folders (every kind: training, moe-chiplet, serving, faults).
std::vector<fs::path> shipped_scenarios() {
  std::vector<fs::path> files = {llmsim::test::source_path("scenarios/default.json")};
  for (const std::string dir : {"pipeline", "moe", "moe/flowmoe", "serving", "faults", "topologies", "validation"})
    for (const auto& e : fs::directory_iterator(llmsim::test::source_path("scenarios/" + dir)))
      if (e.path().extension() == ".json") files.push_back(e.path());
  std::sort(files.begin(), files.end());
  return files;
}

class SchemaCommand : public llmsim::test::Cli {};

TEST_F(SchemaCommand, ShippedFilesAreCurrent) {
  const auto md = run("schema");
  ASSERT_EQ(md.code, 0) << md.err;
  EXPECT_TRUE(md.out == llmsim::test::read_file(llmsim::test::source("docs/scenario-reference.md")))
      << "docs/scenario-reference.md is stale; " << kRegenerate;
  const auto js = run("schema --format json-schema");
  ASSERT_EQ(js.code, 0) << js.err;
  EXPECT_TRUE(js.out == llmsim::test::read_file(llmsim::test::source("docs/scenario.schema.json")))
      << "docs/scenario.schema.json is stale; " << kRegenerate;
}

TEST_F(SchemaCommand, UnknownFormatIsACommandLineError) {
  const auto r = run("schema --format yaml");
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("--format"), std::string::npos) << r.err;
  EXPECT_TRUE(r.out.empty());
}

TEST(ScenarioReference, CoversEveryKeyOfEveryShippedScenario) {
  const std::string md = the_markdown();
  std::set<std::string> kinds;
  for (const auto& file : shipped_scenarios()) {
    const auto s = llmsim::scenario::load_scenario(file.string());
    kinds.insert(s.kind + (s.faults.enabled() ? "+faults" : ""));
    expect_covered(s.resolved, "", md, md, file.string());
  }
  EXPECT_EQ(kinds, (std::set<std::string>{"training", "training+faults", "moe-chiplet", "serving"}));
}

TEST(ScenarioReference, JsonSchemaAcceptsEveryShippedScenarioRawAndResolved) {
  const json schema = the_schema();
  for (const auto& file : shipped_scenarios()) {
    std::string why;
    EXPECT_TRUE(valid(llmsim::scenario::read_json_file(file.string()), schema, "", why)) << file << " " << why;
    EXPECT_TRUE(valid(llmsim::scenario::load_scenario(file.string()).resolved, schema, "", why)) << file << " " << why;
  }
}

TEST(ScenarioReference, JsonSchemaRejectsWhatTheValidatorRejects) {
  const json schema = the_schema();
  const json base = llmsim::test::default_json();
  // Each override is a ScenarioError for the loader and must fail the schema too.
  for (const std::string set : {"parallelism.tpp=4", "parallelism.tp=0", "parallelism.dp=\"many\"", "training.precision=\"fp12\"",
                                "strategies.pipeline_schedule={\"name\":\"1f1b\",\"virtual_stages\":2}",
                                "strategies.pipeline_schedule=\"1f2b\"",
                                "hardware.preset=\"B300\"", "serving.precision=\"bf16\"", "routing.skew=1",
                                "model.moe.experts=-1", "cluster.topology={\"name\":\"torus\",\"w\":2}"}) {
    json j = base;
    llmsim::scenario::apply_override(j, set);
    EXPECT_THROW(llmsim::scenario::resolve(j), llmsim::ScenarioError) << set;
    std::string why;
    EXPECT_FALSE(valid(j, schema, "", why)) << set;
  }
  // And accepts what it accepts: "auto", a bare family name, a preset with overrides, a serving scenario.
  for (const std::string set : {"parallelism.dp=\"auto\"", "strategies.pipeline_schedule=\"gpipe\"",
                                "cluster.nodes=4", "training.grad_bucket_MB=25.5"}) {
    json j = base;
    llmsim::scenario::apply_override(j, set);
    EXPECT_NO_THROW(llmsim::scenario::resolve(j)) << set;
    std::string why;
    EXPECT_TRUE(valid(j, schema, "", why)) << set << " " << why;
  }
}

template <class Interface>
void expect_family_documented(const std::string& path, const std::string& md, const json& schema) {
  const json* node = &schema;
  std::stringstream parts(path);
  for (std::string key; std::getline(parts, key, '.');) {
    if (!node->contains("properties")) node = &node->at("anyOf").back();  // a preset section: its object form
    node = &node->at("properties").at(key);
  }
  const json& names = node->at("anyOf").at(0).at("enum");
  std::string index_row;
  for (const auto& line : llmsim::test::lines(md))
    if (line.rfind("| [" + path + "]", 0) == 0) index_row = line;
  for (const auto& [name, entry] : llmsim::strategy::Registry<Interface>::instance().entries()) {
    EXPECT_NE(index_row.find("`" + name + "`"), std::string::npos) << path << " " << name;
    EXPECT_NE(section_of(md, path).find("| `" + name + "` | "), std::string::npos) << path << " " << name;
    if (!entry.params.empty()) EXPECT_NE(section_of(md, path + " = " + name), "") << path << " " << name;
    for (const auto& p : entry.params)
      EXPECT_EQ(row_of(section_of(md, path + " = " + name), path + "." + p.key).size(), 6u) << path << " " << name;
    EXPECT_NE(std::find(names.begin(), names.end(), name), names.end()) << path << " " << name;
  }
  EXPECT_EQ(names.size(), llmsim::strategy::Registry<Interface>::instance().entries().size()) << path;
}

TEST(ScenarioReference, DocumentsEveryRegisteredFamilyMember) {
  using namespace llmsim;
  const std::string md = the_markdown();
  const json schema = the_schema();
  expect_family_documented<platform::Topology>("cluster.topology", md, schema);
  expect_family_documented<strategy::PipelineSchedule>("strategies.pipeline_schedule", md, schema);
  expect_family_documented<strategy::ExpertPlacementStrategy>("strategies.expert_placement", md, schema);
  expect_family_documented<strategy::FaultTolerance>("strategies.fault_tolerance", md, schema);
  expect_family_documented<strategy::MoePipeline>("strategies.moe_pipeline", md, schema);
  expect_family_documented<moe::RoutingModel>("routing", md, schema);
  expect_family_documented<faults::FailureProcess>("faults.process", md, schema);
  expect_family_documented<serving::WorkloadSource>("serving.workload", md, schema);
  expect_family_documented<serving::Scheduler>("serving.scheduler", md, schema);
  expect_family_documented<serving::Router>("serving.router", md, schema);
}

}  // namespace
