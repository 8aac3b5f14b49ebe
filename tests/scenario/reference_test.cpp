// `llmsim schema`: the shipped docs/scenario-reference.md and docs/scenario.schema.json are its current output,
// the reference covers every key of every shipped scenario (resolved) and every registered family member, and
// a full validator of the JSON Schema's draft (Debian's python3-jsonschema, run by check_schema.py) accepts the
// shipped scenarios (raw and resolved) and rejects what `llmsim validate` rejects.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
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

constexpr const char* kPython = "/usr/bin/python3";

/// Runs tests/scenario/check_schema.py `what` ("shipped" or "rejected"), which prints one line per problem.
void expect_schema_check(const fs::path& dir, const std::string& what) {
  const std::string probe = std::string(kPython) + " -c 'import jsonschema' >/dev/null 2>&1";
  ASSERT_EQ(std::system(probe.c_str()), 0) << kPython << " cannot import jsonschema (tools/setup.sh installs "
                                           << "python3-jsonschema)";
  const std::string log = (dir / "check_schema.log").string();
  const std::string cmd = std::string(kPython) + " '" + llmsim::test::source("tests/scenario/check_schema.py") +
                          "' --llmsim '" + LLMSIM_BINARY + "' " + what + " >'" + log + "' 2>&1";
  const int status = std::system(cmd.c_str());
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << llmsim::test::read_file(log);
}

TEST_F(SchemaCommand, FullValidatorAcceptsEveryShippedScenarioRawAndResolved) {
  // The loader's resolved form of every shipped scenario, named as check_schema.py's resolved_name says (llmsim
  // validate would print it too, but it also plans each run: seconds for the big ones).
  const fs::path resolved = dir_ / "resolved";
  fs::create_directories(resolved);
  for (const auto& e : fs::recursive_directory_iterator(llmsim::test::source_path("scenarios"))) {
    std::string name = fs::relative(e.path(), LLMSIM_TEST_SOURCE_DIR).generic_string();
    if (e.path().extension() != ".json" || name == "scenarios/regression/baseline.json") continue;
    for (size_t at; (at = name.find('/')) != std::string::npos;) name.replace(at, 1, "__");
    std::ofstream(resolved / name) << llmsim::scenario::load_scenario(e.path().string()).resolved.dump();
  }
  expect_schema_check(dir_, "--resolved '" + resolved.string() + "' shipped");
}

TEST_F(SchemaCommand, FullValidatorRejectsWhatValidateRejects) { expect_schema_check(dir_, "rejected"); }

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
