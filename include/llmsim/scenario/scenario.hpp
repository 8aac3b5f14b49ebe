#pragma once
// The typed, resolved scenario. Everything is in SI base units (s, bytes, FLOP, bytes/s, FLOP/s); the JSON
// unit suffixes (_GBps, _Gbps, _us, _GiB, _TFLOPS) are converted once, in scenario/loader.cpp.
// The engine and the models never see JSON.
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "llmsim/scenario/params.hpp"

namespace llmsim::scenario {

/// Efficiency parameters of the compute model, calibrated once per hardware preset
/// (see docs/calibration.md for the procedure and the data used).
struct Calibration {
  double matmul_efficiency = 0;   ///< fraction of peak reached by a large GEMM, 0..1
  double matmul_half_dim = 0;     ///< GEMM dimension (elements) at which a dimension halves efficiency
  double memory_efficiency = 0;   ///< fraction of HBM bandwidth reached by element-wise kernels, 0..1
  double nvlink_efficiency = 0;   ///< fraction of NVLink bandwidth reached by NCCL intra-node collectives
  double kernel_overhead = 0;     ///< fixed cost per kernel launch [s]
  double network_efficiency = 0;  ///< fraction of NIC line rate reached by inter-node transfers, 0..1
  double in_switch_efficiency = 1;  ///< fraction of NVLink bandwidth an NVLS (in-switch) reduction reaches
  /// Fused attention (model/fused_attention.hpp): e_max and s_half of e(s) = e_max s / (s + s_half), forward and
  /// backward; e_max 0 = no measurement for this device (training.attention "flash" is then an error).
  double flash_forward_efficiency = 0, flash_forward_half_seq = 0;
  double flash_backward_efficiency = 0, flash_backward_half_seq = 0;
  /// GEMMs in a block-scaled precision (mxfp8, nvfp4) reach this fraction of matmul_efficiency: fitted where a
  /// calibration table has both per-tensor and block-scaled rows (docs/calibration.md), else 1.
  double block_scaled_gemm_efficiency = 1;
  /// NVFP4 GEMMs reach this fraction of an MXFP8 GEMM's efficiency (relative to their own, higher peak): fitted
  /// where a table has NVFP4 rows (docs/calibration.md), else 1.
  double nvfp4_gemm_efficiency = 1;
  /// Serving compute efficiencies (serving/step_model.hpp), fitted under the engine of the device's serving
  /// table (serving.engine multipliers 1 there); 0 = the training value above (no serving table for the device).
  double serving_matmul_efficiency = 0, serving_matmul_half_dim = 0, serving_memory_efficiency = 0;
};

/// Board power per kernel class (hardware/power_model.hpp); compute 0 = no power model for the device.
struct Power {
  double idle = 0, compute = 0, memory = 0;  ///< [W]
  bool known() const { return compute > 0; }
};

struct Hardware {
  std::string name;
  std::map<std::string, double> peak_flops;  ///< dense tensor-core peak per precision [FLOP/s]
  double memory_bytes = 0;                   ///< HBM capacity [bytes]
  double memory_bandwidth = 0;               ///< HBM bandwidth [bytes/s]
  double nvlink_bandwidth = 0;               ///< per GPU, per direction [bytes/s]
  double nvlink_latency = 0;                 ///< one hop [s]
  int gpus_per_node = 0;
  int nics_per_node = 0;
  double nic_bandwidth = 0;                  ///< per NIC, per direction [bytes/s]
  bool nvswitch_reduction = false;           ///< NVLS-capable NVSwitch
  double host_link_bandwidth = 0;            ///< PCIe to host memory, per direction [bytes/s]
  /// The host CPU's time per framework kernel launch relative to the x86 host (Xeon Platinum 8480C, DGX H100) that
  /// software.kernel_launch_us is stated for: the host pays kernel_launch x this (hardware.host_cpu_slowdown).
  double host_cpu_slowdown = 1;
  Calibration calibration;
  Power power;
};

/// A strategy (or topology) chosen by name with its parameters (validated against its field table, in SI units).
struct StrategyChoice {
  std::string name;
  Params params;
};

/// `nodes` nodes of `gpus_per_node` GPUs, joined by the network of `topology` (platform/topology.hpp).
struct Cluster {
  StrategyChoice topology;       ///< name + that topology's parameters (e.g. fat-tree oversubscription)
  std::string intra_node = "nvswitch";  ///< "nvswitch" or "nvlink-mesh"
  int nodes = 0;
  int gpus_per_node = 0;
  int nics_per_node = 0;
  double nic_bandwidth = 0;      ///< [bytes/s] per direction
  double nic_latency = 0;        ///< NIC + cable, one way [s]
  long long total_gpus() const { return static_cast<long long>(nodes) * gpus_per_node; }
};

/// Mixture-of-Experts FFN layers (Shazeer et al. 2017; GShard; DeepSeek-MoE). experts == 0: dense model.
struct Moe {
  int experts = 0;            ///< routed experts per MoE layer
  int top_k = 1;              ///< routed experts per token
  int shared_experts = 0;     ///< experts every token visits
  int expert_ffn_hidden = 0;  ///< inner size of one expert's FFN
  int first_dense_layers = 0; ///< leading layers with a dense FFN
  int layer_interval = 1;     ///< after those, every n-th layer is MoE
  double capacity_factor = 0; ///< 0 = dropless
  bool enabled() const { return experts > 0; }
  /// Whether transformer layer `layer` (0-based, whole model) has a MoE FFN.
  bool is_moe_layer(int layer) const {
    return enabled() && layer >= first_dense_layers && (layer - first_dense_layers) % layer_interval == 0;
  }
};

/// Multi-head latent attention (DeepSeek-V2, arXiv 2405.04434, Sec. 2.1; Megatron-Core MLASelfAttention): queries
/// and keys/values pass through low-rank latents; each head's query and key are head_dim (no position) +
/// qk_rope_head_dim (RoPE) wide, its value v_head_dim. kv_lora_rank == 0: standard multi-head/grouped attention.
struct Mla {
  int q_lora_rank = 0;       ///< query latent width; 0 = queries projected directly from the hidden state
  int kv_lora_rank = 0;      ///< key/value latent width (shared by all heads)
  int qk_rope_head_dim = 0;  ///< RoPE part of each query and key (the key's is shared by all heads)
  int v_head_dim = 0;        ///< value width of each head
  bool enabled() const { return kv_lora_rank > 0; }
};

struct Model {
  std::string name;
  int layers = 0, hidden = 0, heads = 0, kv_heads = 0, ffn_hidden = 0, vocab = 0, max_seq_len = 0;
  int head_dim = 0;        ///< attention head dimension d (hidden/heads unless the model says otherwise)
  std::string activation;  ///< "gelu" (2 FFN GEMMs) or "swiglu" (3 FFN GEMMs)
  bool dropout = true;     ///< hidden and attention dropout (1-byte masks written and kept)
  std::string norm;        ///< "layernorm" or "rmsnorm"
  std::string position;    ///< "learned" or "rope"
  bool tied_embeddings = true;
  double params_b = 0;     ///< published size [billions], informative only
  Moe moe;
  Mla mla;
  /// Multi-token prediction modules (DeepSeek-V3 Sec. 2.2): each a transformer layer (MoE where the model's last
  /// layers are) after a projection of [embedding; hidden] and with the shared output head, on the last chunk.
  int mtp_layers = 0;
  /// Transformer layers the training workload runs: the model's and its MTP modules', which follow them.
  int transformer_layers() const { return layers + mtp_layers; }
};

struct Parallelism {
  int tp = 1, pp = 1, dp = 1, cp = 1;
  int ep = 1;  ///< expert parallelism: experts split over ep data-parallel replicas (ep divides dp)
  std::string ep_dispatch = "per-expert";  ///< per-expert | per-device | per-node token copies (moe/traffic.hpp)
  bool sequence_parallel = false;
  std::string tp_variant = "megatron";  ///< megatron | fal | fal+ (collective counts in workload/training.hpp)
  int last_stage_layers = 0;            ///< layers of the last stage ("auto" resolves to layers / pp)
  std::string tp_comm_overlap = "none";  ///< none | wgrad | pipelined (workload/chunk_passes.hpp)
  /// Megatron-Core's overlap_p2p_comm: pipeline sends left in flight (workload/pipeline_ops.hpp), in the
  /// schedules that host it (PipelineSchedule::hosts_p2p_overlap)
  bool overlap_p2p_comm = false;
  std::string cp_variant = "ring";       ///< ring | ulysses (workload/context_parallel.hpp)
  std::string rank_order = "tp-cp-dp-pp";  ///< rank numbering, fastest first (workload/training.hpp)
  /// even | embedding-loss: the input embedding and the loss each count as one layer in the split
  /// (Megatron-Core's account_for_embedding_in_pipeline_split / account_for_loss_in_pipeline_split)
  std::string pipeline_split = "even";
  /// Megatron-Core's pipeline_model_parallel_layout (strategy/pipeline_layout.hpp); empty: pipeline_split decides
  std::string pipeline_layout;
  /// Ranks holding the same parameters: a gradient is reduced, and ZeRO shards, over dp * cp of them
  /// (Megatron-Core's data-parallel group with context parallelism).
  int dp_cp() const { return dp * cp; }
};

struct Training {
  int global_batch = 0;          ///< sequences per iteration
  int micro_batch = 1;           ///< sequences per micro-batch
  int seq_len = 0;               ///< tokens per sequence
  int iterations = 1;
  std::string precision = "bf16";  ///< high precision of every kernel (model/precision.hpp)
  std::string fp8 = "none";        ///< FP8 recipe of the weight GEMMs: none | fp8-delayed | fp8-cs | mxfp8 | nvfp4
  std::string attention = "unfused";  ///< unfused (Megatron 2021-22) | flash (model/fused_attention.hpp)
  std::string recompute = "none";  ///< none | selective | full
  std::string optimizer = "adam";  ///< adam | sgd (model/optimizer.hpp)
  std::string optimizer_state_precision = "fp32";  ///< fp32 | bf16: the optimizer's state (model/optimizer.hpp)
  int zero_stage = 0;  ///< 0: none; 1: optimizer states, 2: + gradients, 3: + weights sharded over dp
  bool overlap_grad_reduce = true;     ///< dp all-reduce of a bucket starts as soon as its gradients are final
  bool grad_reduce_in_fp32 = true;     ///< bf16 gradients kept and reduced in fp32 (model/precision.hpp)
  bool fp8_param_gather = false;       ///< FP8 GEMM weights held only in FP8 (workload/memory.hpp)
  double grad_bucket_bytes = 0;
  bool scatter_gather_p2p = true;      ///< Megatron's scatter/gather of inter-stage activations over tp ranks
  /// What recompute "selective" recomputes (Megatron-Core's recompute_modules): the unfused attention core
  /// (core_attn, the default), MLA's up-projections (mla_up_proj), the routed experts' activation (moe_act).
  struct RecomputeModules {
    bool core_attn = true, mla_up_proj = false, moe_act = false;
  } recompute_modules;
  /// Scopes replayed as CUDA graphs (Transformer Engine's cuda_graph_scope): one launch per pass of each unit.
  struct CudaGraph {
    bool attn = false, mlp = false, moe_router = false;
  } cuda_graph;
  int micro_batches_per_pipeline(int dp) const { return global_batch / (micro_batch * dp); }
};

struct Strategies {
  StrategyChoice pipeline_schedule;
  StrategyChoice fault_tolerance;   ///< what the job does when a node fails (strategy/fault_tolerance.hpp)
  StrategyChoice expert_placement;  ///< MoE: which expert-parallel rank hosts which experts
  StrategyChoice moe_pipeline;      ///< MoE: how dispatch, experts and combine overlap
};

/// Failures over a training horizon (faults/failure_process.hpp); process "none" = a plain run.
struct Faults {
  StrategyChoice process{"none", {}};  ///< "none" for kinds without failures (serving)
  double horizon = 0;  ///< simulated training time [s]
  double sample = 0;   ///< throughput CSV bucket [s]
  int spare_nodes = 0; ///< nodes standing by to replace failed ones
  double replace = 0;  ///< [s] to bring a spare in
  bool enabled() const { return process.name != "none"; }
};

/// Serving (kind "serving", serving/*.hpp): parallelism.dp replicas of tp x pp GPUs each.
struct KvCacheConfig {
  int block_size = 16;               ///< tokens per KV block (vLLM's default)
  double memory_utilization = 0.9;   ///< fraction of HBM (or of the memory left, free_basis) for the KV cache
  bool free_basis = false;           ///< memory_utilization of what weights and activations leave (TRT-LLM)
  double watermark = 0.01;           ///< fraction of blocks kept free when admitting a prefill
  std::string preemption = "recompute";  ///< recompute | swap
  double swap_space = 0;             ///< [bytes] host memory per GPU for swapped-out blocks
  long blocks = 0;                   ///< KV blocks per replica; 0 = from the memory left (kv_cache.hpp)
};

/// The serving engine (serving.engine, configs/engines/; scenario/engine_preset.hpp): its costs on this hardware
/// beyond the GPU kernels and its multipliers of the device's serving efficiencies.
struct Engine {
  std::string name;
  double step_overhead = 0;      ///< [s] per step (scheduling, input preparation, sampling launch)
  double sequence_overhead = 0;  ///< [s] per sequence of a step (block tables, sampling, detokenising)
  double collective_hop = 0;     ///< [s] per tp collective and tree level (log2 tp) beyond the wire time
  double matmul_multiplier = 1;  ///< times hardware.calibration.serving_matmul_efficiency
  double memory_multiplier = 1;  ///< times hardware.calibration.serving_memory_efficiency
  double moe_multiplier = 1;     ///< the engine's MoE kernels' efficiency relative to its dense ones
  double matmul_half_dim = 0;    ///< its GEMM efficiency curve's half dimension; 0 = the device's serving one
};

struct Serving {
  std::string precision = "bf16";
  Engine engine;
  StrategyChoice workload;           ///< serving/workload.hpp
  StrategyChoice scheduler;          ///< serving/scheduler.hpp
  StrategyChoice router;             ///< serving/router.hpp
  double rate_scale = 1;             ///< arrival rate multiplier
  long max_requests = 0;             ///< 0 = all
  double duration = 0;               ///< [s] arrivals window; 0 = all
  std::string context_overflow = "reject";  ///< reject | truncate: prompts of model.max_seq_len tokens or more
  KvCacheConfig kv_cache;
  int prefill_replicas = 0;          ///< disaggregation: replicas that only prefill (0 = co-located)
  double slo_ttft = 0, slo_tpot = 0; ///< [s]
  double sample = 1;                 ///< [s] bucket of kv_usage.csv
  int trace_max_steps = 0;           ///< batches per replica in trace.json
  double trace_from = 0, trace_to = 0;  ///< [s] window of trace.json (batch start times; trace_to 0 = the end)
  bool capacity_search = false;      ///< find the highest rate_scale meeting the SLOs
  double capacity_attainment = 0.9;  ///< fraction of requests meeting both SLOs
  double capacity_max_scale = 64;    ///< search interval [1/capacity_max_scale, capacity_max_scale]
  double capacity_tolerance = 0.02;  ///< relative width of the final interval
};

struct Network {
  std::string model = "CM02";                  ///< SimGrid flow model
  std::string collective_algorithm = "auto";   ///< collectives::algorithm_names()
  double message_overhead = 0;                 ///< per message / collective step [s]
  bool fold_replicas = true;                   ///< simulate representative dp replicas (workload/replica_fold.hpp)
  bool aggregate_flows = true;                 ///< re-pair all-pairs flows (collectives/aggregate.hpp)
};

struct Output {
  bool trace = true;
  std::vector<int> trace_ranks;   ///< GPU ranks with trace tracks, ascending ("auto": the first trace_max_gpus)
  int trace_first_iteration = 0;  ///< first iteration (0-based) with trace events
  int trace_last_iteration = -1;  ///< last iteration with trace events (inclusive); -1: the run's last
  bool events_csv = false;        ///< also write events.csv (the traced events as a table)
};

/// The training software (configs/software/, docs/software.md): its kernel choices are already in the sections;
/// its efficiency multipliers are already applied to hardware.calibration (the device's efficiencies are those
/// under the software its calibration table ran, whose multipliers are 1).
struct Software {
  std::string name;
  double matmul = 1, memory = 1, attention = 1;
  double kernel_launch = 0;  ///< host (CPU) time to issue one kernel in eager mode [s]; 0: host not modelled
};

struct Scenario {
  std::string name;
  std::string description;
  std::string kind = "training";
  Hardware hardware;
  Software software;  ///< training kinds; empty name for serving
  Cluster cluster;
  Model model;
  Parallelism parallelism;
  Training training;
  Strategies strategies;
  StrategyChoice routing;  ///< MoE token-to-expert routing model (moe/routing.hpp)
  Faults faults;
  Serving serving;
  Network network;
  Output output;
  unsigned long long seed = 0;
  /// Every family's choice of this kind of scenario, by the family's dotted path ("strategies.pipeline_schedule",
  /// "cluster.topology"; scenario/families.hpp). The named members above (cluster.topology, strategies.*,
  /// routing, faults.process, serving.*) are copies of these, filled by the loader.
  std::map<std::string, StrategyChoice> choices;
  /// The choice of family `path`; std::logic_error if this scenario has no such family (a programming error).
  const StrategyChoice& choice(const std::string& path) const;
  nlohmann::json resolved;  ///< the scenario JSON with presets expanded and every default filled in
  std::string source_dir;   ///< directory of the scenario file (relative paths inside it resolve against it)
};

}  // namespace llmsim::scenario
