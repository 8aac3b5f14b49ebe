// A family is one folder plus one registration (docs/architecture.md, "How to add a strategy family"): a dummy
// family, its interface and member declared here and the family registered in ONE place (the fixture's
// FamilyRegistration), shows in all four places driven by the family registry: validation (its parameter
// checked at its JSON path, exit 2), `llmsim list`, the Markdown reference and the JSON Schema.
#include <gtest/gtest.h>

#include <memory>
#include <nlohmann/json.hpp>
#include <sstream>

#include "../support/cli.hpp"
#include "llmsim/cli/commands.hpp"
#include "llmsim/scenario/loader.hpp"
#include "llmsim/scenario/reference.hpp"
#include "llmsim/strategy/family.hpp"
#include "llmsim/util/error.hpp"

namespace {

using namespace llmsim;
using nlohmann::json;

// Step 1: the interface (in a real family: include/llmsim/<area>/<family>.hpp).
class Widget {
 public:
  virtual ~Widget() = default;
  virtual int width() const = 0;
};

// Step 2: a member in its own .cpp, registered with one line.
class PlainWidget final : public Widget {
 public:
  explicit PlainWidget(int width) : width_(width) {}
  int width() const override { return width_; }

 private:
  int width_;
};
LLMSIM_REGISTER(Widget, "plain", "a widget of a given width",
                (scenario::FieldList{scenario::Field::integer("width", "widget width").at_least(1).at_most(8).with_default(2)}),
                [](const scenario::Params& p, const scenario::Scenario&) { return std::make_unique<PlainWidget>(p.integer("width")); });

// Step 3: the family, registered once (a real family: LLMSIM_FAMILY in the interface's .cpp, same arguments).
class DummyFamily : public ::testing::Test {
 protected:
  scenario::FamilyRegistration family_{strategy::family_of<Widget>(
      "strategies", "widget", "plain", "the dummy widget family", 55, {"strategies", "widget (dummy)", 9})};
};

json with_widget(const json& widget) {
  json raw = test::default_json();
  raw["strategies"]["widget"] = widget;
  return raw;
}

}  // namespace

TEST_F(DummyFamily, AScenarioUsingItValidatesAndTheTypedScenarioHasTheChoice) {
  const auto s = scenario::resolve(with_widget({{"name", "plain"}, {"width", 5}}));
  // Step 4: the consumer reads the choice and builds the member through the registry.
  const auto& choice = s.choice("strategies.widget");
  EXPECT_EQ(choice.name, "plain");
  EXPECT_EQ(strategy::Registry<Widget>::instance().make(choice, s, "/strategies/widget", "widget")->width(), 5);
  EXPECT_EQ(s.resolved["strategies"]["widget"], (json{{"name", "plain"}, {"width", 5}}));
  // Absent: the default member with its defaults.
  const auto d = scenario::resolve(test::default_json());
  EXPECT_EQ(d.choice("strategies.widget").params.integer("width"), 2);
  EXPECT_EQ(d.resolved["strategies"]["widget"], (json{{"name", "plain"}, {"width", 2}}));
}

TEST_F(DummyFamily, ABadParameterIsAnInputErrorAtItsJsonPath) {
  std::ostringstream err;
  try {
    scenario::resolve(with_widget({{"name", "plain"}, {"width", 9}}));
    FAIL() << "width 9 accepted";
  } catch (const ScenarioError&) {
    EXPECT_EQ(exit_code_for(std::current_exception(), err), 2);
  }
  EXPECT_EQ(err.str().rfind("error: /strategies/widget/width: value 9 is out of range", 0), 0u) << err.str();
  EXPECT_THROW(scenario::resolve(with_widget({{"name", "fancy"}})), ScenarioError);
}

TEST_F(DummyFamily, LlmsimListShowsIt) {
  std::ostringstream out;
  ASSERT_EQ(cli::list_command("strategies", out), 0);
  EXPECT_NE(out.str().find("widget (dummy):\n  plain - a widget of a given width\n"
                           "      width: an integer >= 1 and <= 8, default 2 - widget width\n"),
            std::string::npos)
      << out.str();
  EXPECT_NE(out.str().find("pipeline_schedule:\n"), std::string::npos);  // beside the shipped families
}

TEST_F(DummyFamily, TheMarkdownReferenceAndTheJsonSchemaShowIt) {
  const auto root = scenario::scenario_reference();
  const std::string md = scenario::reference_markdown(root);
  EXPECT_NE(md.find("strategies.widget"), std::string::npos);
  EXPECT_NE(md.find("a widget of a given width"), std::string::npos);
  const json schema = json::parse(scenario::reference_json_schema(root).dump());
  const json& widget = schema["properties"]["strategies"]["properties"]["widget"];
  ASSERT_TRUE(widget.is_object()) << schema["properties"]["strategies"].dump();
  EXPECT_EQ(widget["anyOf"][0]["enum"], (json{"plain"}));
  EXPECT_NE(widget.dump().find("\"maximum\":8"), std::string::npos) << widget.dump();
}

TEST(DummyFamilyGone, OutsideTheFixtureTheFamilyIsNotRegistered) {
  for (const auto& fam : scenario::families()) EXPECT_NE(fam.path(), "strategies.widget");
  EXPECT_THROW(scenario::resolve(test::default_json()).choice("strategies.widget"), std::logic_error);
}
