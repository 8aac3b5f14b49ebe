#include "llmsim/scenario/typed.hpp"

#include <algorithm>
#include <tuple>
#include <vector>

#include "llmsim/model/precision.hpp"
#include "llmsim/scenario/families.hpp"
#include "llmsim/scenario/field_json.hpp"
#include "llmsim/scenario/sections.hpp"
#include "llmsim/util/error.hpp"
#include "llmsim/util/limits.hpp"

namespace llmsim::scenario {

using nlohmann::json;

namespace {
bool is_auto(const json& v) { return v.is_string() && v.get<std::string>() == "auto"; }

void derive(json& section, const char* key, const json& value) {
  if (is_auto(section[key])) section[key] = value;
}

std::string str(long long v) { return std::to_string(v); }

/// model.mla: the latent fields need kv_lora_rank (MLA itself), and MLA gives every head its own key and value.
void check_mla(const json& m, bool serving) {
  const json& mla = m["mla"];
  if (serving && mla["kv_lora_rank"] != 0)
    throw ScenarioError("/model/mla", "serving models multi-head and grouped-query attention; multi-head latent "
                                      "attention (its latent KV cache and absorbed decode kernels) is not modelled "
                                      "for serving yet");
  if (mla["kv_lora_rank"] == 0) {
    for (const char* key : {"q_lora_rank", "qk_rope_head_dim"})
      if (mla[key] != 0)
        throw ScenarioError(std::string("/model/mla/") + key, "needs model.mla.kv_lora_rank > 0 (without it the "
                                                              "model has no latent attention)");
    if (mla["v_head_dim"] != m["head_dim"])
      throw ScenarioError("/model/mla/v_head_dim", "needs model.mla.kv_lora_rank > 0 (without latent attention a "
                                                   "head's value is head_dim wide)");
    return;
  }
  if (m["kv_heads"] != m["heads"])
    throw ScenarioError("/model/kv_heads", "multi-head latent attention gives every head its own key and value: "
                                           "kv_heads must equal heads (" + str(m["heads"].get<long long>()) + ")");
}

/// {"name": n, <params>} of family `fam` -> the name and the typed parameters of that member.
StrategyChoice choice_of(const json& v, const Family& fam) {
  StrategyChoice c;
  c.name = v.at("name");
  for (const auto& m : fam.members())
    if (m.name == c.name) c.params = to_params(v, m.params, fam.path() + " = " + c.name);
  return c;
}

/// Every family this kind of scenario has, into s.choices; the named members are copies of them.
void read_choices(const json& raw, Scenario& s) {
  for (const auto& fam : families()) {
    if (!section_allowed(fam.section.empty() ? fam.key : fam.section, s.kind)) continue;
    const json& parent = fam.section.empty() ? raw : raw.at(fam.section);
    s.choices[fam.path()] = choice_of(parent.at(fam.key), fam);
  }
  const auto copy = [&](const char* path, StrategyChoice& to) {
    if (s.choices.count(path)) to = s.choices.at(path);
  };
  copy("cluster.topology", s.cluster.topology);
  copy("strategies.pipeline_schedule", s.strategies.pipeline_schedule);
  copy("strategies.expert_placement", s.strategies.expert_placement);
  copy("strategies.moe_pipeline", s.strategies.moe_pipeline);
  copy("strategies.fault_tolerance", s.strategies.fault_tolerance);
  copy("routing", s.routing);
  copy("faults.process", s.faults.process);
  copy("serving.workload", s.serving.workload);
  copy("serving.scheduler", s.serving.scheduler);
  copy("serving.router", s.serving.router);
}

void read_hardware(const json& hw, Hardware& h) {
  h.name = hw["name"];
  for (const auto& [k, v] : hw["peak_TFLOPS"].items()) h.peak_flops[k] = v.get<double>() * 1e12;
  h.memory_bytes = hw["memory_GiB"].get<double>() * 1073741824.0;
  h.memory_bandwidth = hw["memory_bandwidth_GBps"].get<double>() * 1e9;
  h.nvlink_bandwidth = hw["nvlink_bandwidth_GBps"].get<double>() * 1e9;
  h.nvlink_latency = hw["nvlink_latency_us"].get<double>() * 1e-6;
  h.gpus_per_node = hw["gpus_per_node"];
  h.nics_per_node = hw["nics_per_node"];
  h.nic_bandwidth = hw["nic_Gbps"].get<double>() * 1e9 / 8;
  h.nvswitch_reduction = hw["nvswitch_reduction"];
  h.host_link_bandwidth = hw["host_link_GBps"].get<double>() * 1e9;
  h.host_cpu_slowdown = hw["host_cpu_slowdown"];
  const json& power = hw["power"];
  h.power = {power["idle_W"], power["compute_W"], power["memory_W"]};
  if (!h.power.known() && (h.power.idle > 0 || h.power.memory > 0))
    throw ScenarioError("/hardware/power/compute_W", "0 means no power model, but idle_W or memory_W is set: give "
                                                     "compute_W too, or leave all three 0");
  if (h.power.known() && !(h.power.idle <= h.power.memory && h.power.memory <= h.power.compute))
    throw ScenarioError("/hardware/power", "needs idle_W <= memory_W <= compute_W (got " + power["idle_W"].dump() + ", " +
                                               power["memory_W"].dump() + ", " + power["compute_W"].dump() + ")");
  // hardware.calibration: each JSON key, its member, and the factor to SI (us -> s).
  static const std::vector<std::tuple<const char*, double Calibration::*, double>> kCalibration = {
      {"matmul_efficiency", &Calibration::matmul_efficiency, 1},
      {"matmul_half_dim", &Calibration::matmul_half_dim, 1},
      {"memory_efficiency", &Calibration::memory_efficiency, 1},
      {"nvlink_efficiency", &Calibration::nvlink_efficiency, 1},
      {"network_efficiency", &Calibration::network_efficiency, 1},
      {"kernel_overhead_us", &Calibration::kernel_overhead, 1e-6},
      {"in_switch_efficiency", &Calibration::in_switch_efficiency, 1},
      {"flash_forward_efficiency", &Calibration::flash_forward_efficiency, 1},
      {"flash_forward_half_seq", &Calibration::flash_forward_half_seq, 1},
      {"flash_backward_efficiency", &Calibration::flash_backward_efficiency, 1},
      {"flash_backward_half_seq", &Calibration::flash_backward_half_seq, 1},
      {"block_scaled_gemm_efficiency", &Calibration::block_scaled_gemm_efficiency, 1},
      {"nvfp4_gemm_efficiency", &Calibration::nvfp4_gemm_efficiency, 1},
      {"serving_matmul_efficiency", &Calibration::serving_matmul_efficiency, 1},
      {"serving_matmul_half_dim", &Calibration::serving_matmul_half_dim, 1},
      {"serving_memory_efficiency", &Calibration::serving_memory_efficiency, 1}};
  for (const auto& [key, member, factor] : kCalibration)
    h.calibration.*member = hw["calibration"][key].get<double>() * factor;
}

/// A non-negative integer spelled with digits only, or -1.
long long index_of(const std::string& text) {
  if (text.empty() || text.size() > 9 || text.find_first_not_of("0123456789") != std::string::npos) return -1;
  return std::stoll(text);
}

/// output.trace_ranks ("auto" derived already): comma-separated ranks and inclusive ranges "a-b" below `gpus`.
std::vector<int> trace_ranks(const std::string& text, long long gpus) {
  const std::string where = "/output/trace_ranks";
  std::vector<int> ranks;
  std::vector<bool> chosen(gpus, false);
  size_t begin = 0;
  while (begin <= text.size()) {
    const size_t comma = std::min(text.find(',', begin), text.size());
    const std::string item = text.substr(begin, comma - begin);
    const size_t dash = item.find('-');
    const long long a = index_of(item.substr(0, dash)), b = dash == std::string::npos ? a : index_of(item.substr(dash + 1));
    if (a < 0 || b < a)
      throw ScenarioError(where, "\"" + item + "\" in \"" + text + "\" is not a rank or a range first-last (allowed: "
                                 "auto, or ranks and ranges such as \"0-3,8\")");
    if (b >= gpus)
      throw ScenarioError(where, "rank " + str(b) + " does not exist (the cluster has " + str(gpus) + " GPUs: 0-" +
                                     str(gpus - 1) + ")");
    for (long long r = a; r <= b; ++r) chosen[r] = true;
    begin = comma + 1;
  }
  for (long long r = 0; r < gpus; ++r)
    if (chosen[r]) ranks.push_back(static_cast<int>(r));
  return ranks;
}

/// output.trace_iterations: "all", "i" or "first:last" (inclusive) within the run's `iterations`.
void trace_iterations(const std::string& text, int iterations, Output& o) {
  if (text == "all") return;
  const size_t colon = text.find(':');
  const long long a = index_of(text.substr(0, colon)), b = colon == std::string::npos ? a : index_of(text.substr(colon + 1));
  if (a < 0 || b < a)
    throw ScenarioError("/output/trace_iterations", "\"" + text + "\" is not an iteration window (allowed: all, an "
                                                    "index such as \"1\", or first:last such as \"1:2\")");
  if (b >= iterations)
    throw ScenarioError("/output/trace_iterations", "iteration " + str(b) + " does not exist (training.iterations is " +
                                                        str(iterations) + ": 0-" + str(iterations - 1) + ")");
  o.trace_first_iteration = static_cast<int>(a);
  o.trace_last_iteration = static_cast<int>(b);
}
}  // namespace

void fill_derived_defaults(json& raw) {
  const json& hw = raw["hardware"];
  json& cl = raw["cluster"];
  derive(cl, "gpus_per_node", hw["gpus_per_node"]);
  derive(cl, "nics_per_node", hw["nics_per_node"]);
  derive(cl, "nic_Gbps", hw["nic_Gbps"]);
  json& m = raw["model"];
  derive(m, "kv_heads", m["heads"]);
  const long long hidden = m["hidden"], heads = m["heads"];
  if (is_auto(m["head_dim"]) && hidden % heads != 0)
    throw ScenarioError("/model/heads", "hidden " + str(hidden) + " is not divisible by heads " + str(heads) +
                                            " (or give model.head_dim)");
  if (is_auto(m["head_dim"]) && hidden / heads > limits::kMaxHeadDim)
    throw ScenarioError("/model/heads", "hidden " + str(hidden) + " / heads " + str(heads) + " = " + str(hidden / heads) +
                                            " is a head dimension above " + str(limits::kMaxHeadDim) +
                                            " (raise heads or give model.head_dim)");
  derive(m, "head_dim", hidden / heads);
  derive(m["mla"], "v_head_dim", m["head_dim"]);
  check_mla(m, raw["kind"] == "serving");
  derive(m, "ffn_hidden", 4 * m["hidden"].get<long long>());
  derive(m["moe"], "expert_ffn_hidden", m["ffn_hidden"]);
  if (raw.contains("training")) derive(raw["training"], "seq_len", m["max_seq_len"]);
  json& pl = raw["parallelism"];
  const long long even = m["layers"].get<long long>() / std::max(1LL, pl["pp"].get<long long>());
  if (raw["kind"] == "serving" && !is_auto(pl["last_stage_layers"]) && pl["last_stage_layers"] != even)
    throw ScenarioError("/parallelism/last_stage_layers", "a serving replica splits its layers evenly over pp; leave "
                                                          "last_stage_layers auto (" + str(even) + ")");
  // Both write `even` into the resolved scenario, which must load again as it is.
  if (pl["pipeline_split"] == "embedding-loss" && !is_auto(pl["last_stage_layers"]) && pl["last_stage_layers"] != even)
    throw ScenarioError("/parallelism/last_stage_layers", "pipeline_split embedding-loss sets every chunk's layers; "
                                                          "leave last_stage_layers auto (" + str(even) + ")");
  if (!pl["pipeline_layout"].get<std::string>().empty() &&
      (pl["pipeline_split"] != "even" || (!is_auto(pl["last_stage_layers"]) && pl["last_stage_layers"] != even)))
    throw ScenarioError("/parallelism/pipeline_layout", "a layout sets every chunk's layers: leave pipeline_split "
                                                        "even and last_stage_layers auto (" + str(even) + ")");
  derive(pl, "last_stage_layers", even);
  json& par = raw["parallelism"];
  if (is_auto(par["dp"])) {
    const long long gpus = cl["nodes"].get<long long>() * cl["gpus_per_node"].get<long long>();
    const long long model_parallel = par["tp"].get<long long>() * par["pp"].get<long long>() * par["cp"].get<long long>();
    if (gpus % model_parallel != 0)
      throw ScenarioError("/parallelism", "the " + str(gpus) + " GPUs do not divide by tp*pp*cp = " + str(model_parallel) +
                                              " (dp = GPUs / (tp*pp*cp) must be an integer)");
    par["dp"] = gpus / model_parallel;
  }
  // output.trace_ranks "auto": the first trace_max_gpus ranks, as a range.
  const long long traced = std::min(cl["nodes"].get<long long>() * cl["gpus_per_node"].get<long long>(),
                                    raw["output"]["trace_max_gpus"].get<long long>());
  derive(raw["output"], "trace_ranks", traced == 1 ? "0" : "0-" + str(traced - 1));
}

namespace {
void read_training(const json& t, Training& tr) {
  tr.global_batch = t["global_batch"];
  tr.micro_batch = t["micro_batch"];
  tr.seq_len = t["seq_len"];
  tr.iterations = t["iterations"];
  tr.precision = t["precision"];
  tr.fp8 = t["fp8"];
  tr.attention = t["attention"];
  tr.recompute = t["recompute"];
  tr.optimizer = t["optimizer"];
  tr.optimizer_state_precision = t["optimizer_state_precision"];
  tr.zero_stage = t["zero_stage"];
  tr.overlap_grad_reduce = t["overlap_grad_reduce"];
  tr.grad_reduce_in_fp32 = t["grad_reduce_in_fp32"];
  tr.fp8_param_gather = t["fp8_param_gather"];
  tr.grad_bucket_bytes = t["grad_bucket_MB"].get<double>() * 1e6;
  tr.scatter_gather_p2p = t["scatter_gather_p2p"];
  const json& rm = t["recompute_modules"];
  tr.recompute_modules = {rm["core_attn"], rm["mla_up_proj"], rm["moe_act"]};
  if (tr.recompute != "selective" && (!rm["core_attn"].get<bool>() || rm["mla_up_proj"] || rm["moe_act"]))
    throw ScenarioError("/training/recompute_modules", "chooses what recompute selective recomputes; with recompute " +
                                                           tr.recompute + " leave it at its defaults");
  const json& g = t["cuda_graph"];
  tr.cuda_graph = {g["attn"], g["mlp"], g["moe_router"]};
}

void read_serving(const json& v, Serving& sv) {
  sv.precision = v["precision"];
  sv.rate_scale = v["rate_scale"];
  sv.max_requests = v["max_requests"];
  sv.duration = v["duration_s"];
  sv.context_overflow = v["context_overflow"];
  const json& kv = v["kv_cache"];
  sv.kv_cache = {kv["block_size"],         kv["memory_utilization"], kv["memory_basis"] == "free",
                 kv["watermark"],          kv["preemption"],         kv["swap_space_GiB"].get<double>() * (1 << 30),
                 is_auto(kv["blocks"]) ? 0L : kv["blocks"].get<long>()};
  if (kv["preemption"] == "swap" && kv["swap_space_GiB"].get<double>() == 0)
    throw ScenarioError("/serving/kv_cache/swap_space_GiB", "swap preemption copies KV blocks to host memory: give it "
                                                            "some (above 0), or set preemption to recompute");
  const json& e = v["engine"];
  sv.engine = {e["name"],
               e["step_overhead_us"].get<double>() * 1e-6,
               e["sequence_overhead_us"].get<double>() * 1e-6,
               e["collective_hop_us"].get<double>() * 1e-6,
               e["matmul_multiplier"],
               e["memory_multiplier"],
               e["moe_multiplier"],
               e["matmul_half_dim"]};
  sv.prefill_replicas = v["prefill_replicas"];
  sv.slo_ttft = v["slo"]["ttft_ms"].get<double>() * 1e-3;
  sv.slo_tpot = v["slo"]["tpot_ms"].get<double>() * 1e-3;
  sv.sample = v["sample_s"];
  sv.trace_max_steps = v["trace_max_steps"];
  sv.trace_from = v["trace_from_s"];
  sv.trace_to = v["trace_to_s"];
  const json& c = v["capacity_search"];
  sv.capacity_search = c["enabled"];
  sv.capacity_attainment = c["attainment"];
  sv.capacity_max_scale = c["max_scale"];
  sv.capacity_tolerance = c["tolerance"];
}
}  // namespace

namespace {
/// The software preset's multipliers, applied to the hardware's calibration (each efficiency at most 1).
void read_software(const json& sw, Scenario& s) {
  const json& e = sw["efficiency"];
  s.software = {sw["name"], e["matmul"], e["memory"], e["attention"], sw["kernel_launch_us"].get<double>() * 1e-6};
  Calibration& c = s.hardware.calibration;
  c.matmul_efficiency = std::min(1.0, c.matmul_efficiency * s.software.matmul);
  c.memory_efficiency = std::min(1.0, c.memory_efficiency * s.software.memory);
  c.flash_forward_efficiency = std::min(1.0, c.flash_forward_efficiency * s.software.attention);
  c.flash_backward_efficiency = std::min(1.0, c.flash_backward_efficiency * s.software.attention);
}

void read_cluster(const json& cl, Cluster& c) {
  c.intra_node = cl["intra_node"];
  c.nodes = cl["nodes"];
  c.gpus_per_node = cl["gpus_per_node"];
  c.nics_per_node = cl["nics_per_node"];
  c.nic_bandwidth = cl["nic_Gbps"].get<double>() * 1e9 / 8;
  c.nic_latency = cl["nic_latency_us"].get<double>() * 1e-6;
}

/// The model section; multi-token prediction only in a training scenario of `kind`.
void read_model(const json& m, const std::string& kind, Model& md) {
  md.name = m["name"];
  md.layers = m["layers"];
  md.hidden = m["hidden"];
  md.heads = m["heads"];
  md.kv_heads = m["kv_heads"];
  md.head_dim = m["head_dim"];
  md.ffn_hidden = m["ffn_hidden"];
  md.vocab = m["vocab"];
  md.max_seq_len = m["max_seq_len"];
  md.activation = m["activation"];
  md.norm = m["norm"];
  md.dropout = m["dropout"];
  md.position = m["position"];
  md.tied_embeddings = m["tied_embeddings"];
  md.params_b = m["params_B"];
  const json& moe = m["moe"];
  md.moe = {moe["experts"], moe["top_k"], moe["shared_experts"], moe["expert_ffn_hidden"], moe["first_dense_layers"],
            moe["layer_interval"], moe["capacity_factor"]};
  const json& mla = m["mla"];
  md.mla = {mla["q_lora_rank"], mla["kv_lora_rank"], mla["qk_rope_head_dim"], mla["v_head_dim"]};
  md.mtp_layers = m["mtp_layers"];
  if (md.mtp_layers > 0 && kind != "training")
    throw ScenarioError("/model/mtp_layers", "multi-token prediction is a training module: a " + kind +
                                                 " scenario runs the model without it (set 0)");
}

void read_faults(const json& f, Faults& faults) {
  faults.horizon = f["horizon_h"].get<double>() * 3600;
  faults.sample = f["sample_s"];
  faults.spare_nodes = f["spare_nodes"];
  faults.replace = f["replace_h"].get<double>() * 3600;
}

/// The network and output sections (output's trace selection needs the cluster and the iterations read first).
void read_network_and_output(const json& raw, Scenario& s) {
  const json& n = raw["network"];
  s.network.model = n["model"];
  s.network.collective_algorithm = n["collective_algorithm"];
  s.network.message_overhead = n["message_overhead_us"].get<double>() * 1e-6;
  s.network.fold_replicas = n["fold_replicas"].get<bool>();
  s.network.aggregate_flows = n["aggregate_flows"].get<bool>();
  const json& o = raw["output"];
  s.output.trace = o["trace"];
  s.output.trace_ranks = trace_ranks(o["trace_ranks"].get<std::string>(), s.cluster.total_gpus());
  if (s.kind != "serving") trace_iterations(o["trace_iterations"].get<std::string>(), s.training.iterations, s.output);
  s.output.events_csv = o["events_csv"];
}
}  // namespace

Scenario to_typed(const json& raw) {
  Scenario s;
  s.name = raw["name"];
  s.description = raw["description"];
  s.kind = raw["kind"];
  s.seed = raw["seed"];
  read_hardware(raw["hardware"], s.hardware);
  if (raw.contains("software")) read_software(raw["software"], s);
  read_cluster(raw["cluster"], s.cluster);
  read_model(raw["model"], s.kind, s.model);
  const json& p = raw["parallelism"];
  s.parallelism = {p["tp"], p["pp"], p["dp"], p["cp"], p["ep"], p["ep_dispatch"], p["sequence_parallel"],
                   p["tp_variant"], p["last_stage_layers"], p["tp_comm_overlap"], p["overlap_p2p_comm"],
                   p["cp_variant"], p["rank_order"], p["pipeline_split"], p["pipeline_layout"]};
  if (s.kind == "serving") {
    read_serving(raw["serving"], s.serving);
  } else {
    read_training(raw["training"], s.training);
    read_faults(raw["faults"], s.faults);
  }
  read_network_and_output(raw, s);
  read_choices(raw, s);
  return s;
}

namespace {
/// training.fp8 and training.attention against the hardware: the recipe's GEMM format needs its own peak on the
/// preset (fp8: Hopper and later; mxfp8, nvfp4: Blackwell), fused attention the preset's flash_* calibration.
void check_kernel_choices(const Scenario& s) {
  model::Fp8 f;
  f.recipe = model::fp8_recipe_from_name(s.training.fp8, "/training/fp8");
  f.high = model::precision_from_name(s.training.precision, "/training/precision");
  if (f.enabled()) {
    if (f.high != model::Precision::Bf16 && f.high != model::Precision::Fp16)
      throw ScenarioError("/training/fp8", "FP8 recipes cast from bf16 or fp16 tensors (training.precision is " +
                                               s.training.precision + ")");
    model::peak_flops(s.hardware, f.gemm_precision(), "/training/fp8");
  }
  const auto& c = s.hardware.calibration;
  if (s.training.attention == "flash" && (c.flash_forward_efficiency <= 0 || c.flash_backward_efficiency <= 0))
    throw ScenarioError("/training/attention",
                        "the " + s.hardware.name + " preset has no fused-attention calibration (set "
                        "hardware.calibration.flash_forward_efficiency, flash_backward_efficiency and their "
                        "*_half_seq; the Hopper presets carry FlashAttention-3's, docs/precision.md), or use "
                        "\"unfused\"");
}

/// Context parallelism (workload/context_parallel.hpp): fused attention, and a sequence (and, for Ulysses, heads)
/// that split evenly over the cp ranks.
void check_context_parallel(const Scenario& s) {
  const auto& p = s.parallelism;
  if (p.cp == 1) return;
  if (p.tp_variant != "megatron")
    throw ScenarioError("/parallelism/tp_variant", "\"" + p.tp_variant + "\" merges a block's attention and MLP, "
                                                   "which context parallelism splits (cp " + str(p.cp) +
                                                   "): use \"megatron\" or cp 1");
  if (s.training.attention != "flash")
    throw ScenarioError("/parallelism/cp", "context parallelism runs on fused attention: set training.attention to "
                                           "\"flash\" (Megatron-Core's cp needs Transformer Engine's fused kernels)");
  const long long seq = s.training.seq_len;
  if (p.cp_variant == "ring" && seq % (2LL * p.cp) != 0)
    throw ScenarioError("/parallelism/cp", "ring attention cuts each sequence into 2*cp = " + str(2 * p.cp) +
                                               " chunks (causal load balance by pairing): seq_len " + str(seq) +
                                               " is not divisible by it");
  if (p.cp_variant == "ulysses") {
    const int heads = s.model.heads / p.tp, kv = s.model.kv_heads >= p.tp ? s.model.kv_heads / p.tp : 1;
    if (seq % p.cp != 0 || heads % p.cp != 0 || kv % p.cp != 0)
      throw ScenarioError("/parallelism/cp", "Ulysses needs seq_len " + str(seq) + ", query heads per tp rank " +
                                                 str(heads) + " and kv heads per tp rank " + str(kv) +
                                                 " all divisible by cp " + str(p.cp) + "; use cp_variant \"ring\"");
  }
}

/// The KV cache's preemption settings act where a scheduler preempts (vllm, sarathi); orca, inflight and static
/// reserve an admitted request's whole KV and never do, so swap with them, or a swap space without swap (other than
/// its default or 0, "none"), would be ignored. (The watermark acts for every scheduler: admission, admission.cpp.)
void check_preemption_settings(const Scenario& s) {
  const std::string& scheduler = s.serving.scheduler.name;
  const auto& kv = s.serving.kv_cache;
  const FieldList fields = kv_cache_fields();
  const auto plain = [&](const char* key) { return to_json(*field_at(fields, {key}).default_value); };
  const bool preempts = scheduler == "vllm" || scheduler == "sarathi";
  const std::vector<std::tuple<bool, std::string, std::string>> rules = {
      {!preempts && kv.preemption != plain("preemption"), "preemption",
       "acts when a scheduler preempts (vllm, sarathi); \"" + scheduler + "\" reserves a request's KV at admission "
       "and never does"},
      {kv.preemption != "swap" && kv.swap_space != 0 &&
           kv.swap_space != plain("swap_space_GiB").get<double>() * 1024 * 1024 * 1024,
       "swap_space_GiB", "holds swapped-out blocks: it acts with kv_cache.preemption \"swap\" only (0 = none)"}};
  for (const auto& [ignored, key, why] : rules)
    if (ignored) throw ScenarioError("/serving/kv_cache/" + key, why + ": leave it at its default");
}

void check_serving(const Scenario& s) {
  const auto& sv = s.serving;
  check_preemption_settings(s);
  if (sv.prefill_replicas >= s.parallelism.dp)
    throw ScenarioError("/serving/prefill_replicas", str(sv.prefill_replicas) + " prefill replicas leave no decode "
                        "replica of the " + str(s.parallelism.dp) + " (parallelism.dp); at most " +
                        str(s.parallelism.dp - 1));
  if (s.parallelism.cp != 1 || s.parallelism.ep != 1 || s.parallelism.sequence_parallel)
    throw ScenarioError("/parallelism", "a serving replica is modelled with tp and pp only (cp 1, ep 1, no sequence "
                                        "parallelism)");
  if (s.parallelism.ep_dispatch != "per-expert")
    throw ScenarioError("/parallelism/ep_dispatch", "a serving replica splits routed experts over tp and has no "
                                                    "all-to-all: \"per-expert\" only");
  if (!s.parallelism.pipeline_layout.empty())
    throw ScenarioError("/parallelism/pipeline_layout", "a serving replica splits its layers evenly over pp: a "
                                                        "pipeline layout is a training layout");
  if (s.parallelism.tp_variant != "megatron" || s.parallelism.pipeline_split != "even")
    throw ScenarioError("/parallelism", "a serving replica runs Megatron tp blocks over an even layer split "
                                        "(tp_variant megatron, pipeline_split even): the others are training layouts");
  if (s.model.moe.shared_experts > 0 || s.model.moe.capacity_factor > 0)
    throw ScenarioError("/model/moe", "serving models routed experts split over tp only (shared_experts 0, "
                                      "capacity_factor 0: dropless)");
  if (sv.workload.name == "offline" && sv.rate_scale != 1)
    throw ScenarioError("/serving/rate_scale", "the offline workload has no arrival rate to scale (all its requests "
                                               "arrive at time 0): 1 only");
  if (sv.workload.name == "offline" && sv.capacity_search)
    throw ScenarioError("/serving/capacity_search/enabled", "the offline workload has no arrival rate to search "
                                                            "(all its requests arrive at time 0): false only");
  if (sv.trace_to > 0 && sv.trace_to <= sv.trace_from)
    throw ScenarioError("/serving/trace_to_s", "the trace window ends at " + json(sv.trace_to).dump() +
                                                   " s, not after its start (trace_from_s " +
                                                   json(sv.trace_from).dump() + " s); 0 = no end");
}
/// The scenario's choices that act on MoE layers only: (JSON path, chosen, default), the defaults read from the
/// family registry and the parallelism section's schema. A serving scenario has no MoE strategy families.
std::vector<std::tuple<std::string, std::string, std::string>> moe_choices(const Scenario& s) {
  std::vector<std::tuple<std::string, std::string, std::string>> out;
  for (const Family& fam : families()) {
    const std::string path = fam.path();
    if ((path == "strategies.moe_pipeline" || path == "strategies.expert_placement" || path == "routing") &&
        s.choices.count(path))
      out.emplace_back("/" + (fam.section.empty() ? "" : fam.section + "/") + fam.key, s.choice(path).name,
                       fam.fallback);
  }
  const FieldList parallelism = parallelism_fields();
  out.emplace_back("/parallelism/ep_dispatch", s.parallelism.ep_dispatch,
                   std::get<std::string>(*field_at(parallelism, {"ep_dispatch"}).default_value));
  return out;
}

/// A dense model has no experts: expert parallelism and the MoE strategy families would be ignored, so a value
/// other than their defaults is an error.
void check_dense_model(const Scenario& s) {
  if (s.parallelism.ep > 1)
    throw ScenarioError("/parallelism/ep", "ep " + str(s.parallelism.ep) + " needs a MoE model (model.moe.experts > 0)");
  for (const auto& [path, name, plain] : moe_choices(s))
    if (name != plain)
      throw ScenarioError(path, "\"" + name + "\" acts on MoE layers, and model " + s.model.name +
                                    " has none (model.moe.experts 0): \"" + plain + "\" only");
  const auto& m = s.model.moe;
  Moe plain;  // the fields' defaults; expert_ffn_hidden's "auto" is the dense FFN's width
  plain.expert_ffn_hidden = s.model.ffn_hidden;
  const std::vector<std::tuple<std::string, double, double>> moe_fields = {
      {"top_k", m.top_k, plain.top_k}, {"shared_experts", m.shared_experts, plain.shared_experts},
      {"first_dense_layers", m.first_dense_layers, plain.first_dense_layers},
      {"layer_interval", m.layer_interval, plain.layer_interval},
      {"capacity_factor", m.capacity_factor, plain.capacity_factor},
      {"expert_ffn_hidden", m.expert_ffn_hidden, plain.expert_ffn_hidden}};
  for (const auto& [key, value, plain] : moe_fields)
    if (value != plain)
      throw ScenarioError("/model/moe/" + key, "describes MoE layers, and model " + s.model.name +
                                                   " has none (model.moe.experts 0): " + plain_number(plain) + " only");
}

/// The name is a plain directory name; the fault timeline's buckets within bounds.
void check_name_and_buckets(const Scenario& s) {
  if (s.kind != "serving" && s.faults.horizon / s.faults.sample > limits::kMaxCsvRows)
    throw ScenarioError("/faults/sample_s", "at most 10,000,000 buckets over the horizon: at least " +
                                                std::to_string(s.faults.horizon / limits::kMaxCsvRows) + " s here");
  const bool plain = !s.name.empty() && s.name.size() <= 128 && s.name[0] != '.' &&
                     s.name.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._+-") ==
                         std::string::npos;
  if (!plain)
    throw ScenarioError("/name", "\"" + s.name + "\" is not a plain name (letters, digits, '.', '_', '+', '-'; not starting "
                                 "with '.'; at most 128 characters): it names the default output directory results/<name>/");
}

/// tp x pp x dp x cp covers the cluster; heads, KV heads and layers split over tp and pp; tp inside a node.
void check_layout(const Scenario& s) {
  const auto& p = s.parallelism;
  const auto& m = s.model;
  const long long gpus = s.cluster.total_gpus();
  const long long product = static_cast<long long>(p.tp) * p.pp * p.dp * p.cp;
  if (product != gpus)
    throw ScenarioError("/parallelism/dp", "tp*pp*dp*cp = " + str(p.tp) + "*" + str(p.pp) + "*" + str(p.dp) + "*" +
                                               str(p.cp) + " = " + str(product) + " but the cluster has " + str(gpus) +
                                               " GPUs (" + str(s.cluster.nodes) + " nodes x " +
                                               str(s.cluster.gpus_per_node) + "); they must be equal");
  if (m.heads % m.kv_heads != 0)
    throw ScenarioError("/model/kv_heads", "heads " + str(m.heads) + " is not divisible by kv_heads " + str(m.kv_heads));
  if (m.heads % p.tp != 0)
    throw ScenarioError("/parallelism/tp", "heads " + str(m.heads) + " are not divisible by tp " + str(p.tp));
  if (m.kv_heads % p.tp != 0 && p.tp % m.kv_heads != 0)
    throw ScenarioError("/parallelism/tp", "kv_heads " + str(m.kv_heads) + " and tp " + str(p.tp) +
                                               " must divide one another");
  if (m.layers < p.pp)
    throw ScenarioError("/parallelism/pp", "pp " + str(p.pp) + " exceeds the " + str(m.layers) + " layers");
  if (p.tp > s.cluster.gpus_per_node)
    throw ScenarioError("/parallelism/tp", "tp " + str(p.tp) + " spans more than one NVLink domain (cluster.gpus_per_node = " +
                                               str(s.cluster.gpus_per_node) + " GPUs per node); tp must be <= gpus_per_node");
  if (s.cluster.gpus_per_node % p.tp != 0)
    throw ScenarioError("/parallelism/tp", "tp " + str(p.tp) + " must divide gpus_per_node " +
                                               str(s.cluster.gpus_per_node) + " so tp groups do not straddle nodes");
}

/// The moe-chiplet kind's fixed layout, or the training batch's split over micro-batches and replicas; the
/// sequence within the model's context.
void check_batch(const Scenario& s, bool chiplet, bool serving) {
  const auto& p = s.parallelism;
  const auto& t = s.training;
  if (chiplet) {
    if (s.cluster.topology.name != "nop-tree" || s.cluster.gpus_per_node != 1)
      throw ScenarioError("/kind", "moe-chiplet runs on a nop-tree cluster of single-chiplet nodes (cluster.topology "
                                   "nop-tree, cluster.gpus_per_node 1)");
    if (!s.model.moe.enabled()) throw ScenarioError("/model/moe/experts", "moe-chiplet needs a MoE model (experts > 0)");
    if (p.tp != 1 || p.pp != 1 || p.cp != 1 || p.ep != s.cluster.nodes - 1)
      throw ScenarioError("/parallelism/ep", "moe-chiplet puts attention on node 0 and the experts on the other " +
                                                 str(s.cluster.nodes - 1) + " chiplets: tp 1, pp 1, cp 1 and ep " +
                                                 str(s.cluster.nodes - 1));
    if (t.global_batch % t.micro_batch != 0)
      throw ScenarioError("/training/global_batch", "global batch " + str(t.global_batch) +
                                                        " is not divisible by micro_batch " + str(t.micro_batch));
  } else if (!serving && t.global_batch % (static_cast<long long>(t.micro_batch) * p.dp) != 0)
    throw ScenarioError("/training/global_batch", "global batch " + str(t.global_batch) +
                                                      " is not divisible by micro_batch*dp = " + str(t.micro_batch) +
                                                      "*" + str(p.dp));
  if (!serving && t.seq_len > s.model.max_seq_len)
    throw ScenarioError("/training/seq_len", "sequence length " + str(t.seq_len) + " exceeds the model's max_seq_len " +
                                                 str(s.model.max_seq_len));
}

/// Experts, top-k and ep agree with each other and with dp; a dense model takes no MoE setting.
void check_experts(const Scenario& s, bool chiplet) {
  const auto& p = s.parallelism;
  const auto& moe = s.model.moe;
  if (moe.enabled()) {
    if (moe.top_k > moe.experts)
      throw ScenarioError("/model/moe/top_k", "top_k " + str(moe.top_k) + " exceeds the " + str(moe.experts) +
                                                  " experts (a token picks distinct experts)");
    if (moe.experts % p.ep != 0)
      throw ScenarioError("/parallelism/ep", "ep " + str(p.ep) + " does not divide the " + str(moe.experts) +
                                                 " experts (each ep rank holds experts/ep of them)");
    if (moe.first_dense_layers >= s.model.layers)
      throw ScenarioError("/model/moe/first_dense_layers", str(moe.first_dense_layers) + " dense layers leave no MoE layer in " +
                                                               str(s.model.layers));
  } else {
    check_dense_model(s);
  }
  if (!chiplet && moe.enabled() && p.ep == 1 && p.ep_dispatch != "per-expert")
    throw ScenarioError("/parallelism/ep_dispatch", "\"" + p.ep_dispatch + "\" shapes the all-to-all of expert "
                                                    "parallelism, and ep 1 has none (parallelism.ep > 1): "
                                                    "\"per-expert\" only");
  if (!chiplet && p.dp % p.ep != 0)
    throw ScenarioError("/parallelism/ep", "ep " + str(p.ep) + " must divide dp " + str(p.dp) +
                                               " (expert-parallel groups are made of data-parallel replicas)");
}

/// Sequence parallelism and its overlap, the network model against the topology, the intra-node fabric.
void check_fabric(const Scenario& s, bool serving) {
  const auto& p = s.parallelism;
  if (p.tp_comm_overlap == "pipelined" && !p.sequence_parallel)
    throw ScenarioError("/parallelism/tp_comm_overlap",
                        "\"pipelined\" overlaps the all-gathers and reduce-scatters of sequence parallelism: set "
                        "parallelism.sequence_parallel to true, or use \"none\" or \"wgrad\"");
  if (!serving && p.sequence_parallel && s.training.seq_len % (static_cast<long long>(p.tp) * p.cp) != 0)
    throw ScenarioError("/training/seq_len", "sequence parallelism needs seq_len divisible by tp*cp");
  if (s.network.model == "ns-3" && s.cluster.topology.name != "simgrid-xml")
    throw ScenarioError("/network/model", "the ns-3 packet-level model runs only on simgrid-xml platforms whose routes are "
                                          "single links (Debian's SimGrid 3.32); the " + s.cluster.topology.name +
                                          " topology has multi-link routes: use CM02, LV08 or IB");
  if (s.cluster.intra_node == "nvlink-mesh" && s.cluster.gpus_per_node < 2)
    throw ScenarioError("/cluster/intra_node", "an NVLink mesh needs at least 2 GPUs per node");
}
}  // namespace

/// The recomputation and CUDA-graph scopes that name a part of the model need that part: a dense model has no routed
/// experts (moe_act, moe_router), a model without multi-head latent attention no up-projections (mla_up_proj).
void check_module_targets(const Scenario& s) {
  const auto& t = s.training;
  const std::vector<std::tuple<bool, std::string, std::string>> targets = {
      {t.recompute_modules.moe_act && !s.model.moe.enabled(), "/training/recompute_modules/moe_act",
       "the routed experts' activation, and model " + s.model.name + " has no experts (model.moe.experts 0)"},
      {t.cuda_graph.moe_router && !s.model.moe.enabled(), "/training/cuda_graph/moe_router",
       "the MoE router, and model " + s.model.name + " has no experts (model.moe.experts 0)"},
      {t.recompute_modules.mla_up_proj && !s.model.mla.enabled(), "/training/recompute_modules/mla_up_proj",
       "multi-head latent attention's up-projections, and model " + s.model.name + " has none (model.mla.kv_lora_rank 0)"}};
  for (const auto& [set, path, what] : targets)
    if (set) throw ScenarioError(path, "acts on " + what + ": false only");
}

/// A fault-tolerance module acts on a run under failures: with no failure process it would be ignored.
void check_fault_tolerance(const Scenario& s) {
  const std::string& module = s.strategies.fault_tolerance.name;
  if (!module.empty() && module != "none" && s.faults.process.name == "none")
    throw ScenarioError("/strategies/fault_tolerance",
                        "\"" + module + "\" acts on a run under failures, and faults.process is \"none\": choose a "
                        "failure process (a trace with no failures gives the module's failure-free cost; give "
                        "checkpoint-restart an interval_h, as its auto interval writes none without failures), "
                        "or \"none\"");
}

void check_cross_fields(const Scenario& s) {
  check_name_and_buckets(s);
  check_layout(s);
  const bool chiplet = s.kind == "moe-chiplet", serving = s.kind == "serving";
  if (serving) check_serving(s);
  check_batch(s, chiplet, serving);
  check_experts(s, chiplet);
  check_fabric(s, serving);
  const std::string& precision = serving ? s.serving.precision : s.training.precision;
  const std::string path = serving ? "/serving/precision" : "/training/precision";
  model::peak_flops(s.hardware, model::precision_from_name(precision, path), path);
  if (!serving) check_kernel_choices(s), check_context_parallel(s), check_module_targets(s), check_fault_tolerance(s);
}

}  // namespace llmsim::scenario
