// Regressions found by the scenario fuzzer (tests/fuzz/scenario_fuzz.cpp, docs/hardening.md): each minimised input
// written out, checked the way the fuzz target checks it, must end in one ScenarioError.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>

#include "../support/scenarios.hpp"
#include "llmsim/faults/failure_process.hpp"
#include "llmsim/scenario/loader.hpp"
#include "llmsim/util/error.hpp"

namespace {

/// The fuzz target's check: the text parsed as JSON, resolved against the shipped scenarios' topologies folder.
llmsim::scenario::Scenario scenario_of_text(const std::string& text) {
  return llmsim::scenario::resolve(nlohmann::json::parse(text), llmsim::test::source_path("scenarios/topologies"));
}

llmsim::ScenarioError error_of_text(const std::string& text) {
  return llmsim::test::error_of([&] { scenario_of_text(text); });
}

bool starts_with(const std::string& s, const std::string& prefix) { return s.rfind(prefix, 0) == 0; }

// A preset name longer than a file name may be (255 bytes with ".json") was used as a path:
// std::filesystem::filesystem_error "File name too long", exit 1.
TEST(FuzzFindings, PresetNameLongerThanAFileName) {
  const std::string name(251, 'q');  // 251 + ".json" = 256 bytes
  const auto e = error_of_text(R"({"model": ")" + name + R"("})");
  EXPECT_EQ(e.path(), "/model/preset");
  EXPECT_TRUE(starts_with(e.what(), "/model/preset: unknown preset \"qqq")) << e.what();
}

// More spare nodes than failures: with_spares kept a slot per spare (2.5 GB here) and scanned all of them for each
// failure, a timeout. With spares to spare, every failure of mecefo-high (2 h repairs) lasts replace_h.
TEST(FuzzFindings, FarMoreSpareNodesThanFailures) {
  const auto s = scenario_of_text(R"({"name": "spares", "hardware": "A100-SXM4-80GB", "model": "llama-350m",
      "cluster": {"preset": "selene", "nodes": 4}, "training": {"global_batch": 512, "micro_batch": 16, "seq_len": 256},
      "faults": {"process": "mecefo-high", "horizon_h": 12, "spare_nodes": 320000000, "replace_h": 0.25}})");
  const auto draw = llmsim::faults::failures_of(s);
  ASSERT_GE(draw.failures.size(), 12u);  // one every 0.5 h on average over 12 h
  for (const auto& f : draw.failures) EXPECT_DOUBLE_EQ(f.duration, 0.25 * 3600);
}

// virtual_stages 2^31 - 1 with pp 4: pp * v overflowed an int in chunk_layers (UBSan: signed integer overflow).
TEST(FuzzFindings, VirtualStagesBeyondAnInt) {
  const auto e = error_of_text(R"({"name": "v", "hardware": "A100-SXM4-80GB", "model": "gpt-76.1b",
      "cluster": {"preset": "selene", "nodes": 128}, "parallelism": {"pp": 4, "tp": 8},
      "strategies": {"pipeline_schedule": {"name": "interleaved-1f1b", "virtual_stages": 2147483647}},
      "training": {"global_batch": 1792, "micro_batch": 1, "seq_len": 2048}})");
  EXPECT_EQ(e.path(), "/strategies/pipeline_schedule/virtual_stages");
  EXPECT_TRUE(starts_with(e.what(), "/strategies/pipeline_schedule/virtual_stages: pp * virtual_stages = 8589934588 "
                                    "model chunks is more than the 60 layers"))
      << e.what();
}

}  // namespace

namespace {
// An Azure trace named by a path longer than a file name may be: std::filesystem::exists threw filesystem_error
// ("File name too long"), which the fuzz target reports as a crash (the command line turned it into exit 2, without
// the JSON path).
TEST(FuzzFindings, AzureTraceNameLongerThanAFileName) {
  const std::string name(300, 'a');
  const auto e = error_of_text(R"({"name": "t", "kind": "serving", "hardware": "A100-SXM4-80GB", "model": "llama2-70b",
      "cluster": {"preset": "selene", "nodes": 1}, "parallelism": {"tp": 4},
      "serving": {"precision": "fp16", "workload": {"name": "azure-trace", "trace": ")" + name + R"("}}})");
  EXPECT_EQ(e.path(), "/serving/workload/trace");
  EXPECT_NE(std::string(e.what()).find("File name too long"), std::string::npos) << e.what();
}
}  // namespace
