// Library-level tests of scenario resolution: presets, unit conversion, derived defaults, overrides and the
// exact JSON-pointer paths of every kind of input error.
#include <gtest/gtest.h>

#include "llmsim/platform/fat_tree.hpp"

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>
#include <string>

#include "../support/scenarios.hpp"
#include "llmsim/scenario/loader.hpp"
#include "llmsim/scenario/schema.hpp"
#include "llmsim/util/error.hpp"

namespace {

using llmsim::ScenarioError;
using nlohmann::json;
namespace sc = llmsim::scenario;

json default_json() { return sc::read_json_file(std::string(LLMSIM_TEST_SOURCE_DIR) + "/scenarios/default.json"); }

bool contains(const std::string& haystack, const std::string& needle) {
  return haystack.find(needle) != std::string::npos;
}

/// Resolves `raw`, expecting a ScenarioError; returns it (fails the test if none or another exception).
ScenarioError resolve_error(const json& raw) {
  return llmsim::test::error_of([&] { sc::resolve(raw); });
}

// ---------------------------------------------------------------- default.json

TEST(LoaderDefault, DerivesDpFromGpuCount) {
  const auto s = sc::resolve(default_json());
  EXPECT_EQ(s.cluster.nodes, 2);
  EXPECT_EQ(s.cluster.gpus_per_node, 8);
  EXPECT_EQ(s.cluster.total_gpus(), 16);
  EXPECT_EQ(s.parallelism.tp, 2);
  EXPECT_EQ(s.parallelism.pp, 2);
  EXPECT_EQ(s.parallelism.dp, 4);
  EXPECT_EQ(s.parallelism.cp, 1);
  EXPECT_FALSE(s.parallelism.sequence_parallel);
  EXPECT_EQ(s.resolved["parallelism"]["dp"], 4);
}

TEST(LoaderDefault, ConvertsUnitsToSi) {
  const auto s = sc::resolve(default_json());
  const auto& h = s.hardware;
  EXPECT_EQ(h.name, "A100-SXM4-80GB");
  EXPECT_DOUBLE_EQ(h.nvlink_bandwidth, 3e11);
  EXPECT_DOUBLE_EQ(h.nic_bandwidth, 2.5e10);
  EXPECT_DOUBLE_EQ(h.memory_bytes, 80.0 * 1073741824.0);
  EXPECT_DOUBLE_EQ(h.memory_bandwidth, 2039e9);
  EXPECT_DOUBLE_EQ(h.nvlink_latency, 2.0e-6);
  EXPECT_DOUBLE_EQ(h.peak_flops.at("fp16"), 312e12);
  EXPECT_DOUBLE_EQ(h.peak_flops.at("bf16"), 312e12);
  EXPECT_EQ(h.peak_flops.count("fp8"), 0u);
  EXPECT_EQ(h.gpus_per_node, 8);
  EXPECT_EQ(h.nics_per_node, 8);
  // Cluster NICs default ("auto") to the hardware's; latencies come from the selene topology preset.
  EXPECT_EQ(s.cluster.nics_per_node, 8);
  EXPECT_DOUBLE_EQ(s.cluster.nic_bandwidth, 2.5e10);
  EXPECT_DOUBLE_EQ(s.cluster.nic_latency, 1.0e-6);
  EXPECT_DOUBLE_EQ(llmsim::platform::fat_tree_params(s.cluster).switch_latency, 0.5e-6);
  EXPECT_EQ(llmsim::platform::fat_tree_params(s.cluster).leaf_radix, 40);
  EXPECT_TRUE(llmsim::platform::fat_tree_params(s.cluster).rail_optimized);
  EXPECT_DOUBLE_EQ(llmsim::platform::fat_tree_params(s.cluster).oversubscription, 1.0);
  EXPECT_EQ(s.cluster.topology.name, "fat-tree");
  // grad_bucket_MB default 40 -> bytes.
  EXPECT_DOUBLE_EQ(s.training.grad_bucket_bytes, 40e6);
}

TEST(LoaderDefault, SeqLenAutoIsModelMax) {
  const auto s = sc::resolve(default_json());
  EXPECT_EQ(s.model.max_seq_len, 2048);
  EXPECT_EQ(s.training.seq_len, 2048);
  EXPECT_EQ(s.resolved["training"]["seq_len"], 2048);
}

TEST(LoaderDefault, TypedFieldsMatchScenarioAndPreset) {
  const auto s = sc::resolve(default_json());
  EXPECT_EQ(s.name, "default");
  EXPECT_EQ(s.kind, "training");
  EXPECT_EQ(s.seed, 0u);
  EXPECT_EQ(s.model.name, "gpt-1.7b");
  EXPECT_EQ(s.model.layers, 24);
  EXPECT_EQ(s.model.hidden, 2304);
  EXPECT_EQ(s.model.heads, 24);
  EXPECT_EQ(s.model.kv_heads, 24);
  EXPECT_EQ(s.model.ffn_hidden, 9216);
  EXPECT_EQ(s.model.vocab, 51200);
  EXPECT_EQ(s.model.activation, "gelu");
  EXPECT_EQ(s.training.global_batch, 64);
  EXPECT_EQ(s.training.micro_batch, 1);
  EXPECT_EQ(s.training.iterations, 2);
  EXPECT_EQ(s.training.precision, "fp16");
  EXPECT_EQ(s.training.recompute, "full");
  EXPECT_EQ(s.training.micro_batches_per_pipeline(s.parallelism.dp), 16);
  EXPECT_EQ(s.strategies.pipeline_schedule.name, "interleaved-1f1b");
  EXPECT_EQ(s.strategies.pipeline_schedule.params.keys(), (std::vector<std::string>{"ep_overlap", "virtual_stages"}));
  EXPECT_EQ(s.strategies.pipeline_schedule.params.integer("virtual_stages"), 2);
  EXPECT_FALSE(s.strategies.pipeline_schedule.params.flag("ep_overlap"));  // the default: Megatron's is off
}

TEST(LoaderDefault, ResolvedJsonHasEveryDefault) {
  const auto s = sc::resolve(default_json());
  const json& r = s.resolved;
  EXPECT_EQ(r["kind"], "training");
  EXPECT_EQ(r["seed"], 0);
  EXPECT_EQ(r["parallelism"]["cp"], 1);
  EXPECT_EQ(r["parallelism"]["sequence_parallel"], false);
  EXPECT_EQ(r["cluster"]["gpus_per_node"], 8);
  EXPECT_EQ(r["cluster"]["nics_per_node"], 8);
  EXPECT_EQ(r["cluster"]["nic_Gbps"], 200);
  EXPECT_EQ(r["cluster"]["topology"]["name"], "fat-tree");
  EXPECT_EQ(r["model"]["kv_heads"], 24);
  EXPECT_EQ(r["model"]["ffn_hidden"], 9216);
  EXPECT_EQ(r["training"]["zero_stage"], 0);
  EXPECT_EQ(r["training"]["overlap_grad_reduce"], true);
  EXPECT_EQ(r["training"]["grad_bucket_MB"], 40.0);
  EXPECT_EQ(r["training"]["scatter_gather_p2p"], true);
  EXPECT_EQ(r["network"]["model"], "CM02");
  EXPECT_EQ(r["network"]["collective_algorithm"], "auto");  // chosen per collective at run time, not derived
  EXPECT_EQ(r["output"]["trace"], true);
  EXPECT_EQ(r["output"]["trace_max_gpus"], 64);
  EXPECT_EQ(r["strategies"]["pipeline_schedule"]["name"], "interleaved-1f1b");
  EXPECT_EQ(r["strategies"]["pipeline_schedule"]["virtual_stages"], 2);
  // Presets are expanded in place: no "preset" key and no derived "auto" left anywhere.
  EXPECT_TRUE(r["hardware"].is_object());
  EXPECT_FALSE(r["hardware"].contains("preset"));
  EXPECT_FALSE(r["model"].contains("preset"));
  EXPECT_FALSE(r["cluster"].contains("preset"));
  auto derived = r;
  derived["network"].erase("collective_algorithm");
  EXPECT_FALSE(contains(derived.dump(), "\"auto\""));
  // The resolved JSON resolves again to the same thing (it is a complete, valid scenario).
  EXPECT_EQ(sc::resolve(r).resolved, r);
}

TEST(LoaderDefault, LoadScenarioEqualsResolveOfFile) {
  const auto a = sc::load_scenario(std::string(LLMSIM_TEST_SOURCE_DIR) + "/scenarios/default.json");
  const auto b = sc::resolve(default_json());
  EXPECT_EQ(a.resolved, b.resolved);
}

// ---------------------------------------------------------------- presets

TEST(LoaderPreset, StringForm) {
  json raw = default_json();
  raw["model"] = "gpt-1.7b";
  const auto s = sc::resolve(raw);
  EXPECT_EQ(s.model.name, "gpt-1.7b");
  EXPECT_EQ(s.model.layers, 24);
}

TEST(LoaderPreset, ObjectFormOverridesPresetFields) {
  json raw = default_json();
  raw["model"] = {{"preset", "gpt-1.7b"}, {"layers", 12}};
  const auto s = sc::resolve(raw);
  EXPECT_EQ(s.model.name, "gpt-1.7b");
  EXPECT_EQ(s.model.layers, 12);
  EXPECT_EQ(s.model.hidden, 2304);  // the rest still comes from the preset
  EXPECT_EQ(s.resolved["model"]["layers"], 12);
}

TEST(LoaderPreset, UnknownPresetNearMissSuggests) {
  json raw = default_json();
  raw["model"] = "gpt-1.7";
  const auto e = resolve_error(raw);
  EXPECT_EQ(e.path(), "/model/preset");
  EXPECT_TRUE(contains(e.what(), "unknown preset \"gpt-1.7\"")) << e.what();
  EXPECT_TRUE(contains(e.what(), "did you mean \"gpt-1.7b\"")) << e.what();
  // It lists the available presets.
  EXPECT_TRUE(contains(e.what(), "llama2-7b")) << e.what();
  EXPECT_TRUE(contains(e.what(), "gpt3-175b")) << e.what();
}

TEST(LoaderPreset, UnknownPresetInObjectForm) {
  json raw = default_json();
  raw["hardware"] = {{"preset", "Z9000"}, {"memory_GiB", 10}};
  const auto e = resolve_error(raw);
  EXPECT_EQ(e.path(), "/hardware/preset");
  EXPECT_TRUE(contains(e.what(), "A100-SXM4-80GB")) << e.what();
}

TEST(LoaderPreset, ListPresets) {
  const auto hw = sc::list_presets("hardware");
  EXPECT_NE(std::find(hw.begin(), hw.end(), "A100-SXM4-80GB"), hw.end());
  EXPECT_TRUE(std::is_sorted(hw.begin(), hw.end()));
  const auto models = sc::list_presets("models");
  EXPECT_NE(std::find(models.begin(), models.end(), "gpt-1.7b"), models.end());
}

// ---------------------------------------------------------------- errors with exact paths

TEST(LoaderError, UnknownKeySuggestsClosest) {
  json raw = default_json();
  raw["parallelism"]["tpp"] = 2;
  const auto e = resolve_error(raw);
  EXPECT_EQ(e.path(), "/parallelism/tpp");
  EXPECT_TRUE(contains(e.what(), "unknown key")) << e.what();
  EXPECT_TRUE(contains(e.what(), "did you mean \"tp\"")) << e.what();
}

TEST(LoaderError, ABadSoftwareDefaultIsNamedWhereItWasWritten) {
  // A software object's "defaults" fill the sections; an error in a filled value names the defaults, not the
  // section it was copied into.
  json raw = default_json();
  raw["software"] = {{"preset", "megatron-2021"}, {"defaults", {{"parallelism", {{"tp_comm_overlap", "bogus"}}}}}};
  auto e = resolve_error(raw);
  EXPECT_EQ(e.path(), "/software/defaults/parallelism/tp_comm_overlap") << e.what();
  EXPECT_TRUE(contains(e.what(), "/software/defaults/parallelism/tp_comm_overlap: ")) << e.what();
  raw["software"]["defaults"] = {{"training", {{"recompte", "full"}}}};
  e = resolve_error(raw);
  EXPECT_EQ(e.path(), "/software/defaults/training/recompte") << e.what();
  EXPECT_TRUE(contains(e.what(), "did you mean \"recompute\"")) << e.what();
  raw["software"]["defaults"] = {{"parallelism", {{"a\tb", 1}}}};  // a control character in the key is escaped once
  e = resolve_error(raw);
  EXPECT_EQ(e.path(), "/software/defaults/parallelism/a\tb");
  EXPECT_TRUE(contains(e.what(), "/software/defaults/parallelism/a\\tb: unknown key")) << e.what();
  // A default the scenario shadows is checked all the same, and named where it was written.
  raw = default_json();
  raw["software"] = {{"preset", "megatron-2021"}, {"defaults", {{"parallelism", {{"tp", "abc"}}}}}};
  EXPECT_EQ(resolve_error(raw).path(), "/software/defaults/parallelism/tp");
  // A cross-field rule broken by a filled value names the defaults too: nemo-24.07's flash attention on a device
  // without a fused-attention calibration.
  raw = default_json();
  raw["software"] = "nemo-24.07";
  EXPECT_EQ(resolve_error(raw).path(), "/software/defaults/training/attention");
  // A value the scenario gives itself is not from the defaults.
  raw = default_json();
  raw["parallelism"]["tp_comm_overlap"] = "bogus";
  EXPECT_EQ(resolve_error(raw).path(), "/parallelism/tp_comm_overlap");
}

TEST(LoaderError, ARateTooSmallToSimulateIsOutOfRange) {
  // Denormal rates passed "> 0" and aborted SimGrid (a non-finite duration, a zero-rate deadlock): rates,
  // efficiencies and bandwidths are at least 0.001 of their unit; "0 = not measured" efficiencies are 0 or that.
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"hardware.peak_TFLOPS.fp16=5e-324", "/hardware/peak_TFLOPS/fp16"},
      {"hardware.calibration.matmul_efficiency=1e-310", "/hardware/calibration/matmul_efficiency"},
      {"hardware.calibration.matmul_half_dim=1e300", "/hardware/calibration/matmul_half_dim"},
      {"hardware.nvlink_bandwidth_GBps=1e-308", "/hardware/nvlink_bandwidth_GBps"},
      {"cluster.nic_Gbps=1e-300", "/cluster/nic_Gbps"},
      {"hardware.calibration.serving_matmul_efficiency=1e-300", "/hardware/calibration/serving_matmul_efficiency"},
      {"software.efficiency.matmul=1e-310", "/software/efficiency/matmul"}};
  for (const auto& [assignment, path] : cases)
    EXPECT_EQ(llmsim::test::error_of([&] {
                sc::load_scenario(std::string(LLMSIM_TEST_SOURCE_DIR) + "/scenarios/default.json", {assignment});
              }).path(), path) << assignment;
  // The same in the families' parameters and the serving and fault sections (a second probe found them).
  const std::vector<std::tuple<std::string, std::string, std::string>> elsewhere = {
      {"scenarios/topologies/torus.json", "cluster.topology.link_GBps=5e-324", "/cluster/topology/link_GBps"},
      {"scenarios/serving/llama3.1-8b-h100-offline.json", "serving.engine.matmul_multiplier=5e-324",
       "/serving/engine/matmul_multiplier"},
      {"scenarios/regression/serving-vllm.json", "serving.capacity_search.tolerance=1e-300",
       "/serving/capacity_search/tolerance"},
      {"scenarios/faults/mecefo-1b.json", "faults.replace_h=0", "/faults/replace_h"}};
  for (const auto& [file, assignment, path] : elsewhere)
    EXPECT_EQ(llmsim::test::error_of([&] {
                sc::load_scenario(std::string(LLMSIM_TEST_SOURCE_DIR) + "/" + file, {assignment});
              }).path(), path) << assignment;
  EXPECT_NO_THROW(sc::load_scenario(std::string(LLMSIM_TEST_SOURCE_DIR) + "/scenarios/default.json",
                                    {"hardware.calibration.matmul_efficiency=0.001"}));
  // A "0 = not measured" efficiency says so in its range (Field::or_zero), and takes 0 itself.
  const auto tiny = llmsim::test::error_of([&] {
    sc::load_scenario(std::string(LLMSIM_TEST_SOURCE_DIR) + "/scenarios/default.json",
                      {"hardware.calibration.flash_backward_efficiency=0.0005"});
  });
  EXPECT_EQ(tiny.path(), "/hardware/calibration/flash_backward_efficiency");
  EXPECT_NE(tiny.message().find(">= 0.001 and <= 1 (fraction), or 0"), std::string::npos) << tiny.message();
  EXPECT_NO_THROW(sc::load_scenario(std::string(LLMSIM_TEST_SOURCE_DIR) + "/scenarios/default.json",
                                    {"hardware.calibration.flash_backward_efficiency=0"}));
}

TEST(LoaderError, SizesThatOverflowOrExhaustTheMachineAreOutOfRange) {
  // A fifth probe: clos3's rack count overflowed an int (a segfault), 65,536 experts exhausted memory in the
  // routing draw, and a device's 2048 GPUs per node passed through "auto" past the cluster's bound of 1024.
  const std::vector<std::tuple<std::string, std::string, std::string>> cases = {
      {"scenarios/topologies/clos3.json", "cluster.topology.nodes_per_rack=2147483645", "/cluster/topology/nodes_per_rack"},
      {"scenarios/moe/olmoe-ep8-a100.json", "model.moe.experts=65536", "/model/moe/experts"},
      {"scenarios/moe/olmoe-ep8-a100.json", "model.moe.top_k=64", "/model/moe/top_k"},
      {"scenarios/default.json", "hardware.gpus_per_node=2048", "/hardware/gpus_per_node"},
      // strategies whose work grows with expert pairs: at most 1024 experts (4096 took over a minute)
      {"scenarios/regression/moe-placement-mozart.json", "model.moe.experts=2048", "/model/moe/experts"}};
  for (const auto& [file, assignment, path] : cases)
    EXPECT_EQ(llmsim::test::error_of([&] {
                sc::load_scenario(std::string(LLMSIM_TEST_SOURCE_DIR) + "/" + file, {assignment});
              }).path(), path) << assignment;
  // "auto" head_dim = hidden / heads is held to head_dim's own bound (a resolved scenario that could not load).
  const auto wide = llmsim::test::error_of([&] {
    sc::load_scenario(std::string(LLMSIM_TEST_SOURCE_DIR) + "/scenarios/default.json",
                      {"model.hidden=1048576", "model.heads=2", "model.kv_heads=2"});
  });
  EXPECT_EQ(wide.path(), "/model/heads");
  EXPECT_NE(wide.message().find("= 524288 is a head dimension above 65536"), std::string::npos) << wide.message();
}

TEST(LoaderError, UnknownTopLevelKey) {
  json raw = default_json();
  raw["trainng"] = json::object();
  const auto e = resolve_error(raw);
  EXPECT_EQ(e.path(), "/trainng");
  EXPECT_TRUE(contains(e.what(), "did you mean \"training\"")) << e.what();
}

TEST(LoaderError, WrongType) {
  json raw = default_json();
  raw["parallelism"]["tp"] = "four";
  const auto e = resolve_error(raw);
  EXPECT_EQ(e.path(), "/parallelism/tp");
  EXPECT_TRUE(contains(e.what(), "got a string")) << e.what();
  EXPECT_TRUE(contains(e.what(), "integer")) << e.what();
}

TEST(LoaderError, OutOfRange) {
  json raw = default_json();
  raw["parallelism"]["tp"] = 0;
  const auto e = resolve_error(raw);
  EXPECT_EQ(e.path(), "/parallelism/tp");
  EXPECT_TRUE(contains(e.what(), "out of range")) << e.what();
  EXPECT_TRUE(contains(e.what(), ">= 1")) << e.what();
}

TEST(LoaderError, ParallelismProductMismatch) {
  json raw = default_json();
  raw["parallelism"]["dp"] = 2;  // 2*2*2 = 8 != 16 GPUs
  const auto e = resolve_error(raw);
  EXPECT_EQ(e.path(), "/parallelism/dp");
  EXPECT_TRUE(contains(e.what(), "16 GPUs")) << e.what();
}

TEST(LoaderError, GpusNotDivisibleByModelParallel) {
  json raw = default_json();
  raw["parallelism"]["pp"] = 3;  // 16 % (2*3) != 0: dp cannot be derived
  const auto e = resolve_error(raw);
  EXPECT_EQ(e.path(), "/parallelism");
}

TEST(LoaderError, HeadsNotDivisibleByTp) {
  json raw = default_json();
  // 18 heads (head_dim 128), tp 4 divides the node but not the heads.
  raw["model"] = {{"preset", "gpt-1.7b"}, {"heads", 18}, {"kv_heads", 18}};
  raw["parallelism"]["tp"] = 4;
  const auto e = resolve_error(raw);
  EXPECT_EQ(e.path(), "/parallelism/tp");
  EXPECT_TRUE(contains(e.what(), "heads 18")) << e.what();
}

TEST(LoaderError, GlobalBatchNotDivisibleByMicroBatchTimesDp) {
  json raw = default_json();
  raw["training"]["global_batch"] = 62;  // dp 4, micro_batch 1
  const auto e = resolve_error(raw);
  EXPECT_EQ(e.path(), "/training/global_batch");
}

TEST(LoaderError, LayersNotDivisibleByPpTimesVirtualStages) {
  json raw = default_json();
  raw["model"] = {{"preset", "gpt-1.7b"}, {"layers", 22}};  // pp 2 * v 2 = 4
  const auto e = resolve_error(raw);
  EXPECT_EQ(e.path(), "/model/layers");
}

TEST(LoaderError, UnknownPipelineScheduleSuggests) {
  json raw = default_json();
  raw["strategies"]["pipeline_schedule"] = {{"name", "1fb1"}};
  const auto e = resolve_error(raw);
  EXPECT_EQ(e.path(), "/strategies/pipeline_schedule/name");
  EXPECT_TRUE(contains(e.what(), "did you mean \"1f1b\"")) << e.what();
  EXPECT_TRUE(contains(e.what(), "interleaved-1f1b")) << e.what();
}

TEST(LoaderError, UnknownStrategyParameter) {
  json raw = default_json();
  raw["strategies"]["pipeline_schedule"] = {{"name", "interleaved-1f1b"}, {"virtual_stage", 2}};
  const auto e = resolve_error(raw);
  EXPECT_EQ(e.path(), "/strategies/pipeline_schedule/virtual_stage");
  EXPECT_TRUE(contains(e.what(), "did you mean \"virtual_stages\"")) << e.what();
}

TEST(LoaderError, UnknownEnumValue) {
  json raw = default_json();
  raw["training"]["recompute"] = "partial";
  const auto e = resolve_error(raw);
  EXPECT_EQ(e.path(), "/training/recompute");
  EXPECT_TRUE(contains(e.what(), "unknown value \"partial\"")) << e.what();
  EXPECT_TRUE(contains(e.what(), "none, selective, full")) << e.what();
}

TEST(LoaderError, MissingRequiredField) {
  json raw = default_json();
  raw["training"].erase("global_batch");
  const auto e = resolve_error(raw);
  EXPECT_EQ(e.path(), "/training/global_batch");
  EXPECT_TRUE(contains(e.what(), "missing required field")) << e.what();
}

TEST(LoaderError, MissingRequiredSection) {
  json raw = default_json();
  raw.erase("training");
  const auto e = resolve_error(raw);
  EXPECT_EQ(e.path(), "/training");
  EXPECT_TRUE(contains(e.what(), "missing required field")) << e.what();
}

TEST(LoaderError, Fp8RecipeOnHardwareWithoutFp8TensorCores) {
  json raw = default_json();  // A100-SXM4-80GB
  raw["training"]["fp8"] = "fp8-cs";
  const auto e = resolve_error(raw);
  EXPECT_EQ(e.path(), "/training/fp8");
  EXPECT_EQ(std::string(e.what()),
            "/training/fp8: the A100-SXM4-80GB preset has no fp8 peak (its tensor cores do not run fp8; "
            "hardware.peak_TFLOPS lists bf16, fp16, fp32, fp64, int8, tf32)");
}

TEST(LoaderError, Fp8IsARecipeNotATrainingPrecision) {
  json raw = default_json();
  raw["training"]["precision"] = "fp8";
  const auto e = resolve_error(raw);
  EXPECT_EQ(e.path(), "/training/precision");
  EXPECT_TRUE(contains(e.what(), "bf16")) << e.what();
}

TEST(LoaderError, BlockScalingNeedsBlackwell) {
  json raw = default_json();
  raw["hardware"] = "H100-SXM5-80GB";
  raw["training"]["fp8"] = "mxfp8";
  const auto e = resolve_error(raw);
  EXPECT_EQ(e.path(), "/training/fp8");
  EXPECT_TRUE(contains(e.what(), "H100-SXM5-80GB preset has no mxfp8 peak")) << e.what();
  raw["training"]["fp8"] = "nvfp4";
  EXPECT_TRUE(contains(resolve_error(raw).what(), "no nvfp4 peak")) << resolve_error(raw).what();
  raw["training"]["fp8"] = "fp8-delayed";  // Hopper has FP8 tensor cores
  EXPECT_NO_THROW(sc::resolve(raw));
}

TEST(LoaderError, FusedAttentionNeedsItsCalibration) {
  json raw = default_json();  // A100: no fused-attention measurement transcribed
  raw["training"]["attention"] = "flash";
  const auto e = resolve_error(raw);
  EXPECT_EQ(e.path(), "/training/attention");
  EXPECT_TRUE(contains(e.what(), "no fused-attention calibration")) << e.what();
  raw["hardware"] = "H100-SXM5-80GB";
  EXPECT_NO_THROW(sc::resolve(raw));
}

TEST(LoaderError, SeqLenAboveModelMax) {
  json raw = default_json();
  raw["training"]["seq_len"] = 4096;
  const auto e = resolve_error(raw);
  EXPECT_EQ(e.path(), "/training/seq_len");
}

TEST(LoaderError, MoeFamiliesOnADenseModelNameTheirPath) {
  // default.json's GPT has no experts: a MoE pipeline, placement or routing would be ignored, so each is an error.
  const std::vector<std::pair<std::string, json>> cases = {
      {"/strategies/moe_pipeline", json{{"strategies", {{"moe_pipeline", {{"name", "tutel"}, {"chunks", 4}}}}}}},
      {"/strategies/expert_placement", json{{"strategies", {{"expert_placement", "mozart"}}}}},
      {"/routing", json{{"routing", "zipf"}}},
      {"/parallelism/ep_dispatch", json{{"parallelism", {{"ep_dispatch", "per-node"}}}}}};
  for (const auto& [path, patch] : cases) {
    json raw = default_json();
    raw.merge_patch(patch);
    const auto e = resolve_error(raw);
    EXPECT_EQ(e.path(), path);
    EXPECT_TRUE(contains(e.what(), "acts on MoE layers")) << e.what();
  }
  json plain = default_json();  // the defaults, written out, are fine
  plain.merge_patch(json{{"strategies", {{"moe_pipeline", "vanilla-ep"}}}, {"routing", "uniform"}});
  EXPECT_NO_THROW(sc::resolve(plain));
  // So are the MoE layer fields: accepted and ignored, they looked like a setting that had been applied.
  for (const auto& [key, value] : std::vector<std::pair<std::string, json>>{
           {"top_k", 4}, {"capacity_factor", 1.5}, {"shared_experts", 2}, {"first_dense_layers", 3}}) {
    json raw = default_json();
    raw["model"] = {{"preset", raw["model"]}, {"moe", {{key, value}}}};
    const auto e = resolve_error(raw);
    EXPECT_EQ(e.path(), "/model/moe/" + key);
    EXPECT_TRUE(contains(e.what(), "describes MoE layers")) << e.what();
  }
}

TEST(LoaderError, ModuleScopesNeedTheirPartOfTheModel) {
  // default.json's GPT has neither routed experts nor latent attention: recomputing or graphing them would be
  // ignored. MoE models take moe_act and moe_router, DeepSeek's MLA takes mla_up_proj.
  const std::vector<std::pair<std::string, std::vector<std::string>>> cases = {
      {"/training/recompute_modules/moe_act", {"training.recompute=selective", "training.recompute_modules.moe_act=true"}},
      {"/training/recompute_modules/mla_up_proj",
       {"training.recompute=selective", "training.recompute_modules.mla_up_proj=true"}},
      {"/training/cuda_graph/moe_router", {"training.cuda_graph.moe_router=true"}}};
  for (const auto& [path, sets] : cases) {
    const auto e = llmsim::test::error_of([&] { llmsim::test::shipped("scenarios/default.json", sets); });
    EXPECT_EQ(e.path(), path);
    EXPECT_TRUE(contains(e.what(), "false only")) << e.what();
  }
  EXPECT_NO_THROW(llmsim::test::shipped("scenarios/moe/olmoe-ep8-a100.json",
                                        {"training.recompute_modules.moe_act=true", "training.cuda_graph.moe_router=true"}));
}

TEST(LoaderError, AMoeChipletSystemTakesNoSettingItDoesNotModel) {
  // Mozart's chiplets run each micro-batch layer by layer: a schedule, recomputation, an optimizer, gradient
  // buckets, tp variants, a rank order, CUDA graphs or a collective algorithm set there would be ignored (the
  // iteration time did not move).
  const std::string mozart = "scenarios/moe/mozart-system-olmoe-1b-7b.json";
  for (const auto& [path, set] : std::vector<std::pair<std::string, std::string>>{
           {"/strategies/pipeline_schedule", "strategies.pipeline_schedule=zb-v"},
           {"/training/zero_stage", "training.zero_stage=3"},
           {"/training/recompute", "training.recompute=full"},
           {"/training/optimizer", "training.optimizer=sgd"},
           {"/training/grad_bucket_MB", "training.grad_bucket_MB=20"},
           {"/training/overlap_grad_reduce", "training.overlap_grad_reduce=false"},
           {"/training/cuda_graph", "training.cuda_graph.attn=true"},
           {"/parallelism/tp_variant", "parallelism.tp_variant=fal"},
           {"/parallelism/rank_order", "parallelism.rank_order=tp-dp-cp-pp"},
           {"/parallelism/pipeline_split", "parallelism.pipeline_split=embedding-loss"},
           {"/parallelism/pipeline_layout", "parallelism.pipeline_layout=Et|tL"},
           {"/parallelism/sequence_parallel", "parallelism.sequence_parallel=true"},
           {"/parallelism/cp_variant", "parallelism.cp_variant=ulysses"},
           {"/training/fp8_param_gather", "training.fp8_param_gather=true"},
           {"/network/collective_algorithm", "network.collective_algorithm=ring"}}) {
    const auto e = llmsim::test::error_of([&] { llmsim::test::shipped(mozart, {set}); });
    EXPECT_EQ(e.path(), path) << set;
    EXPECT_TRUE(contains(e.what(), "a moe-chiplet system does not model it")) << e.what();
  }
  // A default written out is fine, and so is what a software preset's defaults give (deepspeed-2021: ZeRO-1,
  // no overlapped gradient reduction), also in the resolved scenario, which writes them out.
  EXPECT_NO_THROW(llmsim::test::shipped(mozart, {"training.grad_bucket_MB=40", "training.optimizer=adam"}));
  const auto deepspeed = llmsim::test::shipped(mozart, {"software=deepspeed-2021"});
  EXPECT_NO_THROW(sc::resolve(deepspeed.resolved));
}

TEST(LoaderError, TokenCopyRulesNeedAnAllToAll) {
  // A MoE model with ep 1 exchanges no tokens; a serving replica splits its experts over tp.
  const auto moe = llmsim::test::error_of([] {
    llmsim::test::shipped("scenarios/moe/olmoe-ep8-a100.json", {"parallelism.ep=1", "parallelism.ep_dispatch=per-device"});
  });
  EXPECT_EQ(moe.path(), "/parallelism/ep_dispatch");
  const auto serving = llmsim::test::error_of([] {
    llmsim::test::shipped("scenarios/regression/serving-orca.json", {"parallelism.ep_dispatch=per-node"});
  });
  EXPECT_EQ(serving.path(), "/parallelism/ep_dispatch");
}

TEST(LoaderError, PreemptionSettingsNeedASchedulerThatPreempts) {
  // orca reserves a request's whole KV at admission and never preempts: swap or a swap space would be ignored (the
  // results were identical); vllm preempts, and a swap space acts only with swap. The watermark acts for every
  // scheduler (admission) and 0, TensorRT-LLM's, stays allowed; so does a swap space of 0 (none).
  const std::string orca = "scenarios/regression/serving-orca.json";
  EXPECT_NO_THROW(llmsim::test::shipped(orca, {"serving.kv_cache.watermark=0", "serving.kv_cache.swap_space_GiB=0"}));
  for (const auto& [path, set] : std::vector<std::pair<std::string, std::string>>{
           {"/serving/kv_cache/preemption", "serving.kv_cache.preemption=swap"},
           {"/serving/kv_cache/swap_space_GiB", "serving.kv_cache.swap_space_GiB=8"}}) {
    const auto e = llmsim::test::error_of([&] { llmsim::test::shipped(orca, {set}); });
    EXPECT_EQ(e.path(), path) << set;
  }
  const std::string vllm = "scenarios/regression/serving-vllm.json";
  EXPECT_NO_THROW(llmsim::test::shipped(vllm, {"serving.kv_cache.preemption=swap", "serving.kv_cache.swap_space_GiB=8",
                                               "serving.kv_cache.watermark=0.05"}));
  EXPECT_EQ(llmsim::test::error_of([&] { llmsim::test::shipped(vllm, {"serving.kv_cache.swap_space_GiB=8"}); }).path(),
            "/serving/kv_cache/swap_space_GiB");
}

TEST(LoaderSet, AFamilyGivenByNameTakesItsParametersFromSet) {
  // The scenario names its schedule ("1f1b"); --set of a parameter makes it {"name": "1f1b", ...}, so the parameter
  // is checked against that member (1f1b has none) and a new name takes its own.
  const auto e = llmsim::test::error_of([] {
    llmsim::test::shipped("scenarios/moe/olmoe-ep8-a100.json", {"strategies.pipeline_schedule.ep_overlap=true"});
  });
  EXPECT_EQ(e.path(), "/strategies/pipeline_schedule/ep_overlap");
  const auto s = llmsim::test::shipped("scenarios/moe/olmoe-ep8-a100.json", {"strategies.pipeline_schedule.name=interleaved-1f1b",
                                                                     "strategies.pipeline_schedule.ep_overlap=true",
                                                                     "strategies.pipeline_schedule.virtual_stages=1"});
  EXPECT_TRUE(s.strategies.pipeline_schedule.params.flag("ep_overlap"));
}

TEST(LoaderError, OfflineWorkloadHasNoRateToScaleOrSearch) {
  const std::string offline = "scenarios/serving/llama3.1-8b-h100-offline.json";
  EXPECT_EQ(llmsim::test::error_of([&] { llmsim::test::shipped(offline, {"serving.rate_scale=2"}); }).path(),
            "/serving/rate_scale");
  EXPECT_EQ(llmsim::test::error_of([&] {
              llmsim::test::shipped(offline, {"serving.capacity_search.enabled=true"});
            }).path(),
            "/serving/capacity_search/enabled");
}

TEST(LoaderPreset, EngineByBareName) {
  const std::string offline = "scenarios/serving/llama3.1-8b-h100-offline.json";
  const auto named = llmsim::test::shipped(offline, {"serving.engine=vllm-2023"});
  const auto object = llmsim::test::shipped(offline, {"serving.engine={\"name\": \"vllm-2023\"}"});
  EXPECT_EQ(named.serving.engine.name, "vllm-2023");
  EXPECT_EQ(named.serving.engine.step_overhead, object.serving.engine.step_overhead);
}

TEST(LoaderError, NotAnObject) {
  const auto e = resolve_error(json::array());
  EXPECT_EQ(e.path(), "/");
}

TEST(LoaderError, WhatIsPathColonMessageOnOneLine) {
  json raw = default_json();
  raw["parallelism"]["tp"] = "four";
  const auto e = resolve_error(raw);
  const std::string what = e.what();
  EXPECT_EQ(what.rfind(e.path() + ": ", 0), 0u) << what;
  EXPECT_EQ(what.find('\n'), std::string::npos) << what;
}

TEST(LoaderError, MissingFileNamesTheFile) {
  const std::string file = "/nonexistent/llmsim/none.json";
  try {
    sc::load_scenario(file);
    FAIL() << "expected a ScenarioError";
  } catch (const ScenarioError& e) {
    EXPECT_EQ(e.path(), file);
  }
}

// ---------------------------------------------------------------- apply_override

TEST(LoaderOverride, SetsInteger) {
  json raw = default_json();
  sc::apply_override(raw, "parallelism.tp=4");
  EXPECT_TRUE(raw["parallelism"]["tp"].is_number_integer());
  EXPECT_EQ(raw["parallelism"]["tp"], 4);
  const auto s = sc::resolve(raw);
  EXPECT_EQ(s.parallelism.tp, 4);
  EXPECT_EQ(s.parallelism.dp, 2);  // 16 / (4*2)
}

TEST(LoaderOverride, NonJsonValueIsAString) {
  json raw = default_json();
  sc::apply_override(raw, "model.activation=swiglu");
  // The model section was the preset name "gpt-1.7b"; it becomes {"preset": ..., "activation": ...}.
  EXPECT_EQ(raw["model"]["preset"], "gpt-1.7b");
  EXPECT_EQ(raw["model"]["activation"], "swiglu");
  const auto s = sc::resolve(raw);
  EXPECT_EQ(s.model.activation, "swiglu");
  EXPECT_EQ(s.model.layers, 24);
}

TEST(LoaderOverride, SetsGlobalBatch) {
  json raw = default_json();
  sc::apply_override(raw, "training.global_batch=1024");
  const auto s = sc::resolve(raw);
  EXPECT_EQ(s.training.global_batch, 1024);
  EXPECT_EQ(s.training.precision, "fp16");  // siblings untouched
}

TEST(LoaderOverride, IntoPresetStringSection) {
  json raw = default_json();
  ASSERT_EQ(raw["hardware"], "A100-SXM4-80GB");
  sc::apply_override(raw, "hardware.memory_GiB=40");
  const auto s = sc::resolve(raw);
  EXPECT_EQ(s.hardware.name, "A100-SXM4-80GB");
  EXPECT_DOUBLE_EQ(s.hardware.memory_bytes, 40.0 * 1073741824.0);
  EXPECT_DOUBLE_EQ(s.hardware.nvlink_bandwidth, 3e11);  // rest of the preset kept
}

TEST(LoaderOverride, IntoPresetObjectSection) {
  json raw = default_json();
  sc::apply_override(raw, "cluster.nodes=4");
  const auto s = sc::resolve(raw);
  EXPECT_EQ(s.cluster.nodes, 4);
  EXPECT_EQ(s.parallelism.dp, 8);
  EXPECT_EQ(llmsim::platform::fat_tree_params(s.cluster).leaf_radix, 40);
}

TEST(LoaderOverride, CreatesMissingSection) {
  json raw = default_json();
  sc::apply_override(raw, "network.model=LV08");
  const auto s = sc::resolve(raw);
  EXPECT_EQ(s.network.model, "LV08");
}

TEST(LoaderOverride, NestedStrategyParameter) {
  json raw = default_json();
  sc::apply_override(raw, "strategies.pipeline_schedule.name=1f1b");
  sc::apply_override(raw, "strategies.pipeline_schedule.virtual_stages=1");
  // 1f1b has no virtual_stages parameter: the override lands, then resolution rejects the unknown key.
  const auto e = resolve_error(raw);
  EXPECT_EQ(e.path(), "/strategies/pipeline_schedule/virtual_stages");
}

TEST(LoaderOverride, JsonValues) {
  json raw = default_json();
  sc::apply_override(raw, "output.trace=false");
  sc::apply_override(raw, "training.grad_bucket_MB=12.5");
  EXPECT_TRUE(raw["output"]["trace"].is_boolean());
  const auto s = sc::resolve(raw);
  EXPECT_FALSE(s.output.trace);
  EXPECT_DOUBLE_EQ(s.training.grad_bucket_bytes, 12.5e6);
}

TEST(LoaderOverride, MalformedAssignmentThrows) {
  json raw = default_json();
  EXPECT_THROW(sc::apply_override(raw, "parallelism.tp"), ScenarioError);
  EXPECT_THROW(sc::apply_override(raw, "=4"), ScenarioError);
  EXPECT_THROW(sc::apply_override(raw, "parallelism..tp=4"), ScenarioError);
  try {
    sc::apply_override(raw, "parallelism.tp");
  } catch (const ScenarioError& e) {
    EXPECT_TRUE(contains(e.path(), "parallelism.tp")) << e.path();
  }
}

TEST(LoaderOverride, HugeOrDeepAssignmentsAreErrorsNotCrashes) {
  // A probe crashed the stack with a value of 30,000 digits (std::regex recursed per character) and with a path
  // of 20,000 keys (the null check recursed per level).
  json raw = default_json();
  EXPECT_EQ(llmsim::test::error_of([&] { sc::apply_override(raw, "parallelism.tp=" + std::string(30000, '9')); })
                .path(), "--set parallelism.tp=" + std::string(30000, '9'));
  EXPECT_NO_THROW(sc::apply_override(raw, "description=" + std::string(30000, '9') + "x"));
  EXPECT_EQ(raw["description"], std::string(30000, '9') + "x");  // not number-shaped: a string
  std::string deep = "a";
  for (int i = 1; i < 64; ++i) deep += ".a";
  EXPECT_NO_THROW(sc::apply_override(raw, deep + "=1"));  // 64 keys: the JSON nesting limit
  EXPECT_TRUE(contains(llmsim::test::error_of([&] { sc::apply_override(raw, deep + ".a=1"); }).what(),
                       "a path has at most 64 keys"));
  const auto trailing = llmsim::test::error_of([&] { sc::apply_override(raw, "parallelism.tp.=4"); });
  EXPECT_TRUE(contains(trailing.what(), "empty key in the path")) << trailing.what();
  // A number-shaped value JSON refuses (1., +5, .5) stays an error; anything else is a string (1e+, -.5e3x).
  for (const std::string bad : {"1.", "+5", ".5", "1e+", "-.5e3x"})
    EXPECT_EQ(bad == "1e+" || bad == "-.5e3x", [&] {
      try {
        sc::apply_override(raw, "description=" + bad);
        return true;
      } catch (const ScenarioError&) {
        return false;
      }
    }()) << bad;
}

TEST(LoaderOverride, IntoScalarThrows) {
  json raw = default_json();
  EXPECT_THROW(sc::apply_override(raw, "training.global_batch.x=1"), ScenarioError);
}

TEST(LoaderOverride, IntoTopLevelStringFieldThrows) {
  // "name" is a plain string, not a preset section: setting a field inside it is an error at /name, not a
  // silent conversion of the name into {"preset": "default", "x": 1}.
  json raw = default_json();
  try {
    sc::apply_override(raw, "name.x=1");
    ADD_FAILURE() << "no error; scenario name became " << raw["name"].dump();
  } catch (const ScenarioError& e) {
    EXPECT_EQ(e.path(), "/name");
    EXPECT_TRUE(contains(e.what(), "cannot set a field inside it: it holds \"default\", not an object")) << e.what();
  }
}

TEST(LoaderOverride, WrongTypeFromOverrideIsReportedAtItsPath) {
  try {
    sc::load_scenario(std::string(LLMSIM_TEST_SOURCE_DIR) + "/scenarios/default.json", {"parallelism.tp=four"});
    FAIL() << "expected a ScenarioError";
  } catch (const ScenarioError& e) {
    EXPECT_EQ(e.path(), "/parallelism/tp");
  }
}

// ---------------------------------------------------------------- closest_match

TEST(LoaderClosestMatch, PicksNearestWithinThreshold) {
  EXPECT_EQ(sc::closest_match("tpp", {"tp", "pp", "dp"}), "tp");
  EXPECT_EQ(sc::closest_match("1fb1", {"gpipe", "1f1b", "interleaved-1f1b"}), "1f1b");
  EXPECT_EQ(sc::closest_match("gpt-1.7", {"gpt-1.7b", "gpt-3.6b"}), "gpt-1.7b");
  EXPECT_EQ(sc::closest_match("selectiv", {"none", "selective", "full"}), "selective");
}

TEST(LoaderClosestMatch, NothingCloseGivesEmpty) {
  EXPECT_EQ(sc::closest_match("zzzzzzzz", {"tp", "pp", "dp"}), "");
  EXPECT_EQ(sc::closest_match("anything", {}), "");
}

}  // namespace

TEST(LoaderError, NameMustBeAPlainFileName) {
  auto j = default_json();
  j["name"] = "../../outside";
  EXPECT_EQ(resolve_error(j).path(), "/name");
}

TEST(LoaderError, IntegersBeyond32BitsAreOutOfRangeNotWrapped) {
  auto j = default_json();
  j["cluster"]["gpus_per_node"] = 4294967304.0;  // 2^32 + 8 would wrap to 8
  EXPECT_EQ(resolve_error(j).path(), "/cluster/gpus_per_node");
}

TEST(LoaderError, NullStrategyIsAnErrorNotTheDefault) {
  auto j = default_json();
  j["strategies"]["pipeline_schedule"] = nullptr;
  EXPECT_EQ(resolve_error(j).path(), "/strategies/pipeline_schedule");
}
