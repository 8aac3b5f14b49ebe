#include "llmsim/scenario/engine_preset.hpp"

#include <algorithm>
#include <filesystem>

#include "llmsim/scenario/loader.hpp"
#include "llmsim/util/error.hpp"
#include "llmsim/util/limits.hpp"

namespace llmsim::scenario {

using nlohmann::json;

namespace {

const std::vector<std::string> kFitted = {"step_overhead_us", "sequence_overhead_us", "collective_hop_us",
                                          "matmul_multiplier", "memory_multiplier", "moe_multiplier"};

std::string joined(const std::vector<std::string>& v) {
  std::string out;
  for (const auto& x : v) out += (out.empty() ? "" : ", ") + x;
  return out;
}

/// The scenario's serving.engine with its name (absent: the default engine).
json& engine_choice(json& serving) {
  json& e = serving["engine"];
  if (e.is_null()) e = json{{"name", kDefaultEngine}};
  if (e.is_string()) e = json{{"name", e.get<std::string>()}};  // a bare name, as the reference documents
  if (e.is_object() && e.contains("preset"))  // what the other preset sections take: say which key this one has
    throw ScenarioError("/serving/engine/preset", "unknown key: the engine preset is given as \"name\" (e.g. "
                                                  "{\"name\": \"vllm-2023\", <fields to override>})");
  if (e.is_object() && !e.contains("name")) e["name"] = kDefaultEngine;
  if (e.is_object() && !e["name"].is_string())
    throw ScenarioError("/serving/engine/name", "expected an engine name (a string; one of: " +
                                                    joined(list_presets("engines")) + ")");
  return e;
}

/// The engine's fit on `hardware` under the scenario's own values; every number present or a ScenarioError.
json engine_values(const json& preset, const json& own, const std::string& hardware) {
  const json fits = preset.value("fits", json::object());
  json out = {{"name", own["name"]}, {"description", preset.value("description", "")},
              {"source", preset.value("source", "")}};
  if (fits.contains(hardware)) out.merge_patch(fits[hardware]);
  for (const auto& [key, value] : own.items())
    if (value != json("auto")) out[key] = value;  // "auto": the engine's fit
  if (!out.contains("matmul_half_dim")) out["matmul_half_dim"] = 0;  // optional in a fit: the device's curve
  for (const auto& key : kFitted) {
    if (out.contains(key)) continue;
    std::vector<std::string> fitted;
    for (const auto& [name, fit] : fits.items()) fitted.push_back(name);
    throw ScenarioError("/serving/engine", "the " + own["name"].get<std::string>() + " engine has no fit on " +
                                               hardware + " (it is fitted on: " + joined(fitted) + "; set all of " +
                                               joined(kFitted) + " in serving.engine, or choose another engine)");
  }
  return out;
}

/// An engine preset holds its name (its file's), a description and source, its scheduler and cache defaults, and
/// fits on hardware presets of the fitted numbers only: anything else would be ignored.
void check_engine_preset(const json& preset, const std::string& name) {
  const std::string file = (std::filesystem::path(config_dir()) / "engines" / (name + ".json")).string();
  for (const auto& [key, value] : preset.items())
    if (key != "name" && key != "description" && key != "source" && key != "defaults" && key != "fits")
      throw ScenarioError(file, "unknown key \"" + key + "\" (allowed: name, description, source, defaults, fits)");
  if (preset.value("name", json(name)) != json(name))
    throw ScenarioError(file, "its \"name\" is " + preset["name"].dump() + "; an engine preset is named by its file, \"" +
                                  name + "\"");
  const auto devices = list_presets("hardware");
  const json fits = preset.value("fits", json::object());
  for (const auto& [device, fit] : fits.items()) {
    if (std::find(devices.begin(), devices.end(), device) == devices.end())
      throw ScenarioError(file, "fits: \"" + device + "\" is no hardware preset (one of: " + joined(devices) + ")");
    for (const auto& [key, value] : fit.items())
      if (key != "matmul_half_dim" && std::find(kFitted.begin(), kFitted.end(), key) == kFitted.end())
        throw ScenarioError(file, "fits/" + device + ": unknown key \"" + key + "\" (allowed: " + joined(kFitted) +
                                      ", matmul_half_dim)");
  }
}

/// Writes the engine's defaults beneath the scenario's serving section.
void apply_defaults(json& serving, const json& defaults) {
  for (const auto& [key, base] : defaults.items()) {
    if (!serving.contains(key)) {
      serving[key] = base;
      continue;
    }
    json& own = serving[key];
    const bool family = base.is_object() && base.contains("name");
    if (family && own.is_string()) own = json{{"name", own}};
    if (!base.is_object() || !own.is_object()) continue;  // the scenario's value replaces it (schema checks it)
    if (family && own.contains("name") && own["name"] != base["name"]) continue;  // another member
    json merged = base;
    merged.merge_patch(own);
    own = merged;
  }
}

}  // namespace

FieldList engine_fields() {
  // "auto" (the default): the engine's fit on the scenario's hardware, filled in by expand_engine.
  auto cost = [](const char* key, const char* help) {
    return Field::number(key, "us", help).at_least(0).at_most(1e6).or_auto().with_default("auto");
  };
  auto multiplier = [](const char* key, const char* help) {
    return Field::number(key, "factor", help).at_least(limits::kMinRate).at_most(10).or_auto().with_default("auto");
  };
  return {
      Field::choice("name", list_presets("engines"), "engine preset (configs/engines/)").with_default(kDefaultEngine),
      Field::string("description", "what the engine is").with_default(""),
      Field::string("source", "what its numbers were fitted to").with_default(""),
      cost("step_overhead_us", "engine cost per step outside the GPU kernels (scheduling, input preparation)"),
      cost("sequence_overhead_us", "engine cost per sequence of a step (block tables, sampling, detokenising)"),
      cost("collective_hop_us", "engine cost per tp collective and per tree level (log2 tp), beyond the wire time"),
      multiplier("matmul_multiplier", "times hardware.calibration.serving_matmul_efficiency (1 under the engine "
                                      "the device's serving table was measured with)"),
      multiplier("memory_multiplier", "times hardware.calibration.serving_memory_efficiency"),
      multiplier("moe_multiplier", "efficiency of the engine's MoE kernels (router, permutation, grouped expert "
                                   "GEMMs) relative to its dense kernels; their time is divided by it"),
      Field::number("matmul_half_dim", "elements",
                    "half dimension of the engine's GEMM efficiency curve on this device (its kernel library on small "
                    "matrices); 0 = hardware.calibration.serving_matmul_half_dim; auto = the engine's fit, 0 where "
                    "the fit has none")
          .at_least(0).at_most(1e6).or_auto().with_default("auto"),
  };
}

void expand_engine(json& raw) {
  if (!raw.is_object() || raw.value("kind", json("training")) != json("serving")) return;
  if (!raw.contains("serving")) raw["serving"] = json::object();
  json& serving = raw["serving"];
  if (!serving.is_object()) return;  // the schema reports it
  json& own = engine_choice(serving);
  if (!own.is_object()) return;
  const json preset = load_preset("engines", own["name"].get<std::string>(), "/serving/engine/name");
  check_engine_preset(preset, own["name"].get<std::string>());
  const json& hw = raw.value("hardware", json::object());
  const std::string hardware = hw.is_object() && hw.contains("name") && hw["name"].is_string() ? hw["name"] : "";
  own = engine_values(preset, own, hardware);
  apply_defaults(serving, preset.value("defaults", json::object()));
}

}  // namespace llmsim::scenario
