#include "llmsim/scenario/kind_fields.hpp"

#include <vector>

#include "llmsim/scenario/families.hpp"
#include "llmsim/scenario/field_json.hpp"
#include "llmsim/util/error.hpp"

namespace llmsim::scenario {
namespace {

using json = nlohmann::json;

/// Whether `v` is what `f` takes by default; an object field is when each of its children is.
bool at_default(const Field& f, const json& v) {
  if (f.type == FieldType::Object) {
    for (const Field& c : f.children)
      if (v.contains(c.key) && !at_default(c, v[c.key])) return false;
    return true;
  }
  return f.default_value && v == to_json(*f.default_value);
}

}  // namespace

void check_chiplet_fields(const json& raw, const FieldList& fields, const json& software) {
  const std::string why = "a moe-chiplet system does not model it (its chiplets run each micro-batch layer by layer, "
                          "with no recomputation, optimizer step, collective or host model): leave it at its default";
  const std::vector<std::pair<std::string, std::string>> ignored = {
      {"training", "recompute"},          {"training", "zero_stage"},        {"training", "optimizer"},
      {"training", "optimizer_state_precision"}, {"training", "overlap_grad_reduce"},
      {"training", "grad_reduce_in_fp32"}, {"training", "grad_bucket_MB"},  {"training", "scatter_gather_p2p"},
      {"training", "cuda_graph"},         {"training", "fp8_param_gather"},  {"parallelism", "tp_variant"},
      {"parallelism", "overlap_p2p_comm"}, {"parallelism", "rank_order"},    {"parallelism", "pipeline_layout"},
      {"parallelism", "pipeline_split"},  {"parallelism", "tp_comm_overlap"}, {"parallelism", "sequence_parallel"},
      {"parallelism", "cp_variant"},      {"network", "collective_algorithm"}};
  for (const auto& [section, key] : ignored) {
    const std::string path = "/" + section + "/" + key;
    if (!raw.contains(section) || !raw[section].contains(key)) continue;  // the schema checked every key given
    const json& v = raw[section][key];
    const bool the_softwares = software.contains(section) && software[section].contains(key) && software[section][key] == v;
    if (!the_softwares && !at_default(field_at(fields, {section, key}), v)) throw ScenarioError(path, why);
  }
  for (const auto& fam : families()) {
    if (fam.path() != "strategies.pipeline_schedule" || !raw.contains("strategies") ||
        !raw["strategies"].contains("pipeline_schedule"))
      continue;
    const json& chosen = raw["strategies"]["pipeline_schedule"];
    const std::string name = chosen.is_string() ? chosen.get<std::string>() : chosen.value("name", fam.fallback);
    if (name != fam.fallback) throw ScenarioError("/strategies/pipeline_schedule", why + " (\"" + fam.fallback + "\")");
  }
}

}  // namespace llmsim::scenario
