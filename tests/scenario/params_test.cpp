// scenario::Params (scenario/params.hpp): a member's parameters converted once to SI units by the unit table,
// read by dimension; a getter of the wrong kind or an unknown key is a programming error naming member, key
// and unit.
#include <gtest/gtest.h>

#include <functional>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>

#include "llmsim/scenario/field_json.hpp"
#include "llmsim/scenario/loader.hpp"
#include "llmsim/scenario/params.hpp"
#include "llmsim/scenario/sections.hpp"

namespace sc = llmsim::scenario;
using nlohmann::json;
using sc::Field;

namespace {

const sc::FieldList kFields = {
    Field::integer("hops", "hops"),
    Field::number("lat_us", "us", "latency"),
    Field::number("wait_ms", "ms", "wait"),
    Field::number("mtbf_h", "h", "mean time between failures"),
    Field::number("link_GBps", "GB/s", "bandwidth"),
    Field::number("nic_Gbps", "Gbit/s", "line rate"),
    Field::number("hbm_GiB", "GiB", "capacity"),
    Field::number("bucket_MB", "MB", "bucket"),
    Field::number("rate_rps", "1/s", "rate"),
    Field::number("params_B", "billions", "parameters"),
    Field::number("skew", "", "exponent"),
    Field::number("share", "fraction", "share"),
    Field::boolean("offload", "offload"),
    Field::choice("target", {"node", "nic"}, "target"),
    Field::string("file", "file"),
    Field::number_map("peak_TFLOPS", {"bf16"}, "TFLOP/s", "peaks"),
    Field::object("inner", {Field::number("gap_s", "s", "gap")}, "nested"),
    Field::integer("size", "size").or_auto(),
};

sc::Params params() {
  const json v = {{"name", "x"},       {"hops", 3},         {"lat_us", 2.5},      {"wait_ms", 4},
                  {"mtbf_h", 2},       {"link_GBps", 25},   {"nic_Gbps", 400},    {"hbm_GiB", 80},
                  {"bucket_MB", 40},   {"rate_rps", 7.5},   {"params_B", 1.5},    {"skew", 1.2},
                  {"share", 0.25},     {"offload", true},   {"target", "nic"},    {"file", "a.csv"},
                  {"peak_TFLOPS", {{"bf16", 989}}},         {"inner", {{"gap_s", 0.5}}}, {"size", "auto"}};
  return sc::to_params(v, kFields, "test.family = x");
}

std::string logic_error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const std::logic_error& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST(Params, NumbersAreInSiUnitsByTheirFieldsUnit) {
  const auto p = params();
  EXPECT_EQ(p.integer("hops"), 3);
  EXPECT_DOUBLE_EQ(p.seconds("lat_us"), 2.5e-6);
  EXPECT_DOUBLE_EQ(p.seconds("wait_ms"), 4e-3);
  EXPECT_DOUBLE_EQ(p.seconds("mtbf_h"), 7200);
  EXPECT_DOUBLE_EQ(p.bytes_per_second("link_GBps"), 25e9);
  EXPECT_DOUBLE_EQ(p.bytes_per_second("nic_Gbps"), 50e9);  // 400 Gbit/s = 50 GB/s
  EXPECT_DOUBLE_EQ(p.bytes("hbm_GiB"), 80.0 * 1073741824);
  EXPECT_DOUBLE_EQ(p.bytes("bucket_MB"), 40e6);
  EXPECT_DOUBLE_EQ(p.per_second("rate_rps"), 7.5);
  EXPECT_DOUBLE_EQ(p.count("params_B"), 1.5e9);
  EXPECT_DOUBLE_EQ(p.number("skew"), 1.2);
  EXPECT_DOUBLE_EQ(p.number("share"), 0.25);
  EXPECT_TRUE(p.flag("offload"));
  EXPECT_EQ(p.text("target"), "nic");
  EXPECT_EQ(p.text("file"), "a.csv");
  EXPECT_DOUBLE_EQ(p.number_map("peak_TFLOPS").at("bf16"), 989e12);
  EXPECT_DOUBLE_EQ(p.object("inner").seconds("gap_s"), 0.5);
  EXPECT_TRUE(p.is_auto("size"));
  EXPECT_FALSE(p.is_auto("hops"));
  EXPECT_TRUE(p.has("file"));
  EXPECT_FALSE(p.has("name"));  // the member's name is the choice's, not a parameter
}

TEST(Params, AGetterOfAnotherDimensionIsALogicErrorNamingMemberKeyAndUnit) {
  const auto p = params();
  const std::string e = logic_error_of([&] { p.bytes_per_second("lat_us"); });
  EXPECT_NE(e.find("test.family = x"), std::string::npos) << e;
  EXPECT_NE(e.find("\"lat_us\""), std::string::npos) << e;
  EXPECT_NE(e.find("\"us\""), std::string::npos) << e;
  EXPECT_NE(logic_error_of([&] { p.number("link_GBps"); }).find("\"GB/s\""), std::string::npos);
  EXPECT_NE(logic_error_of([&] { p.seconds("hops"); }).find("an integer, not a number"), std::string::npos);
  EXPECT_NE(logic_error_of([&] { p.integer("size"); }).find("\"auto\""), std::string::npos);
}

TEST(Params, AnUnknownKeyIsALogicErrorNamingMemberAndKey) {
  const std::string e = logic_error_of([] { params().seconds("latency_us"); });
  EXPECT_NE(e.find("test.family = x has no parameter \"latency_us\""), std::string::npos) << e;
}

TEST(Params, EveryUnitOfTheShippedTablesIsInTheUnitTable) {
  EXPECT_NE(logic_error_of([] { sc::unit_scale("furlongs"); }).find("furlongs"), std::string::npos);
  for (const auto& fam : sc::families())
    for (const auto& m : fam.members())
      for (const auto& f : m.params) EXPECT_NO_THROW(sc::unit_scale(f.unit)) << fam.key << " " << m.name << " " << f.key;
}

TEST(Params, AResolvedTopologyHasItsParametersInSi) {
  json raw = sc::read_json_file(std::string(LLMSIM_TEST_SOURCE_DIR) + "/scenarios/default.json");
  sc::apply_override(raw, "cluster.topology={\"name\":\"torus\",\"x\":2,\"y\":1,\"link_GBps\":50,\"link_latency_us\":2}");
  const auto s = sc::resolve(raw);
  const auto& p = s.cluster.topology.params;
  EXPECT_EQ(p.integer("x"), 2);
  EXPECT_EQ(p.integer("z"), 1);  // the default
  EXPECT_DOUBLE_EQ(p.bytes_per_second("link_GBps"), 50e9);
  EXPECT_DOUBLE_EQ(p.seconds("link_latency_us"), 2e-6);
  EXPECT_EQ(s.resolved["cluster"]["topology"]["link_latency_us"], 2);  // the JSON keeps the unit as written
}
