#include "llmsim/scenario/sections.hpp"

#include "llmsim/collectives/collective.hpp"
#include "llmsim/model/optimizer.hpp"
#include "llmsim/model/precision.hpp"
#include "llmsim/scenario/engine_preset.hpp"
#include "llmsim/util/limits.hpp"

namespace llmsim::scenario {

namespace {
const std::vector<std::string>& kPrecisions = model::precision_names();

Field text(const std::string& key, const std::string& help) { return Field::string(key, help).with_default(""); }

using limits::kMinRate;
/// Largest half-efficiency dimension or sequence length [elements]: 10^9, beyond any GEMM or sequence.
constexpr double kMaxHalf = 1e9;

FieldList calibration_fields() {
  return {
      Field::number("matmul_efficiency", "fraction", "fraction of peak FLOP/s a large GEMM reaches").at_least(kMinRate).at_most(1),
      Field::number("matmul_half_dim", "elements", "GEMM dimension at which that dimension alone halves efficiency").at_least(0)
          .at_most(kMaxHalf),
      Field::number("memory_efficiency", "fraction", "fraction of HBM bandwidth element-wise kernels reach").at_least(kMinRate)
          .at_most(1),
      Field::number("nvlink_efficiency", "fraction", "fraction of NVLink bandwidth NCCL intra-node collectives reach")
          .at_least(kMinRate).at_most(1),
      Field::number("network_efficiency", "fraction", "fraction of NIC line rate inter-node transfers reach")
          .at_least(kMinRate).at_most(1),
      Field::number("kernel_overhead_us", "us", "fixed cost per kernel launch").at_least(0),
      Field::number("in_switch_efficiency", "fraction",
                    "fraction of NVLink bandwidth in-switch reduction (NVLS) reaches per GPU port")
          .at_least(kMinRate).at_most(1).with_default(1.0),
      Field::number("flash_forward_efficiency", "fraction",
                    "fused attention forward: largest fraction of peak (e_max of e(s) = e_max s / (s + s_half)); "
                    "0 = not measured on this device")
          .at_least(kMinRate).at_most(1).or_zero().with_default(0.0),
      Field::number("flash_forward_half_seq", "elements", "fused attention forward: sequence length s_half")
          .at_least(0).at_most(kMaxHalf).with_default(0.0),
      Field::number("flash_backward_efficiency", "fraction", "fused attention backward: e_max (0 = not measured)")
          .at_least(kMinRate).at_most(1).or_zero().with_default(0.0),
      Field::number("flash_backward_half_seq", "elements", "fused attention backward: sequence length s_half")
          .at_least(0).at_most(kMaxHalf).with_default(0.0),
      Field::number("block_scaled_gemm_efficiency", "fraction",
                    "GEMMs in a block-scaled precision (mxfp8, nvfp4) reach this fraction of a per-tensor scaled "
                    "GEMM's efficiency (the scale factors' loads in the MMA pipeline); 1 = not measured")
          .at_least(kMinRate).at_most(1).with_default(1.0),
      Field::number("nvfp4_gemm_efficiency", "fraction",
                    "NVFP4 GEMMs reach this fraction of an MXFP8 GEMM's efficiency against their own (FP4) peak: "
                    "the datasheet's FP4 rate is not reached as its FP8 rate is; 1 = not measured")
          .at_least(kMinRate).at_most(1).with_default(1.0),
      Field::number("serving_matmul_efficiency", "fraction",
                    "serving GEMMs: fraction of peak, fitted under the engine of the device's serving table "
                    "(docs/calibration.md); 0 = matmul_efficiency")
          .at_least(kMinRate).at_most(1).or_zero().with_default(0.0),
      Field::number("serving_matmul_half_dim", "elements", "serving GEMMs: matmul_half_dim; 0 = matmul_half_dim")
          .at_least(0).at_most(kMaxHalf).with_default(0.0),
      Field::number("serving_memory_efficiency", "fraction",
                    "serving element-wise and KV reads: fraction of HBM bandwidth; 0 = memory_efficiency")
          .at_least(kMinRate).at_most(1).or_zero().with_default(0.0),
      Field::string("source", "what the calibration was fitted to (docs/calibration.md)"),
  };
}
}  // namespace

FieldList top_level_fields() {
  auto section = [](const std::string& key, const std::string& help) {
    return Field::object(key, {}, help).with_default(EmptyObject{});
  };
  return {
      Field::string("name", "scenario name; default output directory is results/<name>/"),
      text("description", "free text"),
      Field::choice("kind", {"training", "moe-chiplet", "serving"},
                    "what is simulated: training (Megatron-style tp/pp/dp/ep), moe-chiplet (Mozart's chiplet "
                    "system: attention on node 0 of a nop-tree, experts on the other chiplets) or serving (dp "
                    "replicas of tp x pp GPUs answering a request workload; no training section)")
          .with_default("training"),
      Field::integer("seed", "seed of the one random generator of the run").at_least(0).with_default(0),
      Field::object("hardware", {}, "device preset name or object (configs/hardware/)"),
      Field::object("software", {}, "training software preset name or object (configs/software/; default "
                                    "megatron-2021): its kernel choices are the defaults of the fields it names (its key "
                                    "\"defaults\": {\"training\": {field: value}, \"parallelism\": {...}}, each value "
                                    "checked as that field; a field the scenario sets wins), its multipliers scale the "
                                    "device's efficiencies (docs/software.md)")
          .with_default(kDefaultSoftware),
      Field::object("cluster", {}, "cluster shape and network (configs/topologies/)"),
      Field::object("model", {}, "model preset name or object (configs/models/)"),
      section("parallelism", "tp, pp, dp, cp"),
      Field::object("training", {}, "batch, sequence and optimizer settings (not for kind serving)"),
      section("strategies", "pluggable strategy modules chosen by name"),
      section("routing", "MoE token-to-expert routing model (llmsim list routing)"),
      section("faults", "failures over a training horizon and the throughput the job keeps (llmsim list faults)"),
      section("serving", "request workload, scheduler, router, KV cache and SLOs (kind serving only)"),
      section("network", "SimGrid network model"),
      section("output", "what is written besides summary.json"),
  };
}

FieldList software_fields() {
  auto multiplier = [](const std::string& key, const std::string& what) {
    return Field::number(key, "factor", "multiplies the device's " + what + " (1: the software the device was "
                                        "calibrated under)").at_least(kMinRate).at_most(2).with_default(1.0);
  };
  return {
      Field::string("name", "software preset name"),
      text("description", "free text"),
      text("source", "where its kernel choices and multipliers come from"),
      Field::object("efficiency",
                    {multiplier("matmul", "matmul_efficiency"), multiplier("memory", "memory_efficiency"),
                     multiplier("attention", "flash_*_efficiency")},
                    "efficiency multipliers, fitted once on one published table of this software (docs/software.md)")
          .with_default(EmptyObject{}),
      Field::number("kernel_launch_us", "us", "host (CPU) time to issue one kernel from the framework's eager mode; "
                                              "the GPU waits when the host falls behind (docs/software.md); 0: the "
                                              "host is not modelled")
          .at_least(0).at_most(1000).with_default(0.0),
  };
}

FieldList power_fields() {
  return {
      Field::number("idle_W", "W", "board power of an idle GPU (also while it only waits or communicates)").at_least(0).at_most(1e5)
          .with_default(0.0),
      Field::number("compute_W", "W", "board power running compute-bound kernels (GEMMs at full SM use); 0 = no power "
                                      "model for this device").at_least(0).at_most(1e5).with_default(0.0),
      Field::number("memory_W", "W", "board power running memory-bound kernels (HBM at full use, SMs mostly stalled)")
          .at_least(0).at_most(1e5).with_default(0.0),
      text("source", "measurement(s) the numbers come from"),
  };
}

FieldList hardware_fields() {
  return {
      Field::string("name", "device name"),
      text("description", "free text"),
      Field::string("source", "datasheet(s) the numbers come from"),
      text("notes", "caveats on the numbers"),
      Field::number_map("peak_TFLOPS", kPrecisions, "TFLOP/s", "dense tensor-core peak per precision").at_least(kMinRate),
      Field::number("memory_GiB", "GiB", "HBM capacity").above(0),
      Field::number("memory_bandwidth_GBps", "GB/s", "HBM bandwidth").at_least(kMinRate),
      Field::number("nvlink_bandwidth_GBps", "GB/s", "NVLink bandwidth per GPU, per direction").at_least(kMinRate),
      Field::number("nvlink_latency_us", "us", "one NVLink/NVSwitch hop").at_least(0),
      Field::number("host_link_GBps", "GB/s", "PCIe link between the GPU and host memory, per direction (activation offload)")
          .at_least(kMinRate),
      Field::number("host_cpu_slowdown", "factor",
                    "host CPU time per framework kernel launch relative to the x86 host (Xeon Platinum 8480C, DGX H100) "
                    "software.kernel_launch_us is stated for (training: the serving engines' step costs are fitted per "
                    "device); 1 = such an x86 host")
          .at_least(0.1).at_most(100).with_default(1.0),
      Field::integer("gpus_per_node", "GPUs in the standard node for this device").at_least(1).at_most(1024),
      Field::integer("nics_per_node", "compute-fabric NICs in that node").at_least(1).at_most(1024),
      Field::number("nic_Gbps", "Gbit/s", "line rate of one NIC").at_least(kMinRate),
      Field::boolean("nvswitch_reduction", "the node's NVSwitch reduces in the network (NVLS, NVSwitch gen3)")
          .with_default(false),
      Field::object("calibration", calibration_fields(), "compute-model efficiencies, fitted once per device"),
      Field::object("power", power_fields(), "board power per kernel class (hardware/power_model.hpp); absent: no "
                                              "energy is reported").with_default(EmptyObject{}),
  };
}

FieldList cluster_fields() {
  return {
      text("name", "preset name"),
      text("description", "free text"),
      text("source", "where the numbers come from"),
      Field::object("topology", {}, "network between nodes: a name and its parameters (llmsim list topologies)"),
      Field::choice("intra_node", {"nvswitch", "nvlink-mesh"}, "GPUs of a node behind an NVSwitch or a point-to-point NVLink mesh")
          .with_default("nvswitch"),
      Field::integer("nodes", "number of nodes").at_least(1).at_most(1000000),
      Field::integer("gpus_per_node", "GPUs per node behind a non-blocking NVSwitch; auto = hardware.gpus_per_node")
          .at_least(1).at_most(1024).or_auto().with_default("auto"),
      Field::integer("nics_per_node", "compute NICs per node; auto = hardware.nics_per_node").at_least(1).at_most(1024)
          .or_auto().with_default("auto"),
      Field::number("nic_Gbps", "Gbit/s", "NIC line rate; auto = hardware.nic_Gbps").at_least(kMinRate).or_auto().with_default("auto"),
      Field::number("nic_latency_us", "us", "NIC and cable, one way").at_least(0).with_default(1.0),
  };
}

namespace {
FieldList moe_fields() {
  return {
      Field::integer("experts", "routed experts per MoE layer; 0 = a dense model (at most 4096: the routing is drawn "
                     "per expert pair)").at_least(0).at_most(4096).with_default(0),
      Field::integer("top_k", "routed experts per token (at most 32: the routing draw grows with its square)").at_least(1)
          .at_most(32).with_default(1),
      Field::integer("shared_experts", "experts every token goes through (DeepSeek-MoE)").at_least(0).at_most(4096)
          .with_default(0),
      Field::integer("expert_ffn_hidden", "inner size of one expert's FFN; auto = ffn_hidden").at_least(1).or_auto()
          .with_default("auto"),
      Field::integer("first_dense_layers", "leading layers with a dense FFN (DeepSeek's first_k_dense_replace)")
          .at_least(0).with_default(0),
      Field::integer("layer_interval", "after those, every n-th layer is MoE (1 = all)").at_least(1).with_default(1),
      Field::number("capacity_factor", "fraction",
                    "0 = dropless; else an expert takes at most capacity_factor * tokens * top_k / experts tokens of a "
                    "micro-batch and drops the rest (GShard)")
          .at_least(0).with_default(0),
  };
}
FieldList mla_fields() {
  return {
      Field::integer("q_lora_rank", "query latent width (DeepSeek-V3 1536); 0 = queries projected directly")
          .at_least(0).at_most(1048576).with_default(0),
      Field::integer("kv_lora_rank", "key/value latent width shared by the heads (DeepSeek-V3 512); 0 = no MLA")
          .at_least(0).at_most(1048576).with_default(0),
      Field::integer("qk_rope_head_dim", "RoPE part of each query and key head, beside head_dim (DeepSeek-V3 64)")
          .at_least(0).at_most(limits::kMaxHeadDim).with_default(0),
      Field::integer("v_head_dim", "value width of each head; auto = head_dim").at_least(1)
          .at_most(limits::kMaxHeadDim).or_auto().with_default("auto"),
  };
}
}  // namespace

FieldList model_fields() {
  return {
      Field::string("name", "model name"),
      text("description", "free text"),
      text("source", "paper or model card the shape comes from"),
      Field::integer("layers", "transformer blocks").at_least(1).at_most(100000),
      Field::integer("hidden", "hidden size h").at_least(1).at_most(1048576),
      Field::integer("heads", "attention heads a").at_least(1).at_most(65536),
      Field::integer("kv_heads", "key/value heads (grouped-query attention); auto = heads").at_least(1).or_auto().with_default("auto"),
      Field::integer("head_dim", "dimension of one attention head; auto = hidden/heads (Qwen3 uses 128 at any hidden)")
          .at_least(1).at_most(limits::kMaxHeadDim).or_auto().with_default("auto"),
      Field::integer("ffn_hidden", "feed-forward inner size; auto = 4*hidden").at_least(1).or_auto().with_default("auto"),
      Field::integer("vocab", "vocabulary size V").at_least(1).at_most(100000000),
      Field::integer("max_seq_len", "longest trained sequence").at_least(1).at_most(100000000),
      Field::choice("activation", {"gelu", "swiglu"}, "FFN activation (swiglu has three FFN GEMMs)").with_default("gelu"),
      Field::choice("norm", {"layernorm", "rmsnorm"}, "normalisation").with_default("layernorm"),
      Field::boolean("dropout", "hidden and attention dropout (Megatron-LM's default 0.1: a 1-byte mask per element is "
                                "written and kept); false for models trained without it (Llama, Mistral, Qwen, ...)")
          .with_default(true),
      Field::choice("position", {"learned", "rope"}, "position encoding").with_default("learned"),
      Field::boolean("tied_embeddings", "input embedding shared with the output layer").with_default(true),
      Field::number("params_B", "billions", "published parameter count (informative)").at_least(0).with_default(0),
      Field::object("moe", moe_fields(), "Mixture-of-Experts FFN layers (absent: dense)").with_default(EmptyObject{}),
      Field::object("mla", mla_fields(), "multi-head latent attention (DeepSeek-V2/V3; absent: multi-head or "
                                         "grouped-query attention)").with_default(EmptyObject{}),
      Field::integer("mtp_layers", "multi-token-prediction modules after the last layer (DeepSeek-V3: 1): each a "
                                   "transformer layer with a projection and the shared output head, trained on the "
                                   "last pipeline chunk; 0 = none")
          .at_least(0).at_most(16).with_default(0),
  };
}

FieldList parallelism_fields() {
  return {
      Field::integer("tp", "tensor-parallel size (Megatron TP)").at_least(1).with_default(1),
      Field::integer("pp", "pipeline-parallel stages").at_least(1).with_default(1),
      Field::integer("dp", "data-parallel replicas; auto = gpus/(tp*pp*cp)").at_least(1).or_auto().with_default("auto"),
      Field::integer("last_stage_layers", "layers on the last pipeline stage (uneven balancing: the output layer "
                                          "makes it heavier); auto = layers/pp; the others split the rest evenly")
          .at_least(1).or_auto().with_default("auto"),
      Field::choice("pipeline_split", {"even", "embedding-loss"},
                    "how layers split into pipeline chunks: even (with last_stage_layers) or embedding-loss (the input "
                    "embedding and the loss each count as one layer, so the first and last chunk hold one transformer "
                    "layer fewer: Megatron-Core's account_for_embedding/loss_in_pipeline_split)")
          .with_default("even"),
      text("pipeline_layout", "Megatron-Core's pipeline_model_parallel_layout: every model chunk's slots in order, "
                              "E embedding, t transformer layer, L loss, a vertical bar ends a chunk, x*n and "
                              "(...)*n repeat (docs/pipeline.md); pp*virtual_stages chunks, every layer once; empty = "
                              "pipeline_split and last_stage_layers decide"),
      Field::integer("ep", "expert-parallel size: the experts of a MoE layer are split over ep data-parallel replicas")
          .at_least(1).with_default(1),
      Field::choice("ep_dispatch", {"per-expert", "per-device", "per-node"},
                    "MoE token copies: per-expert (one per chosen expert, Megatron's all-to-all dispatcher); "
                    "per-device (one per destination device serving all its experts there, Mozart / DeepEP "
                    "intranode); per-node (one per destination device in the sender's node and one per remote node, "
                    "sent to the GPU of the sender's in-node index there, which forwards it: Megatron's flex "
                    "dispatcher with DeepEP or HybridEP, DeepSeek-V3 report Sec. 3.2.2)")
          .with_default("per-expert"),
      Field::integer("cp", "context-parallel size: each micro-batch's sequence is split over cp ranks, which pass "
                           "keys and values among them (cp_variant; workload/context_parallel.hpp)")
          .at_least(1).with_default(1),
      Field::choice("cp_variant", {"ring", "ulysses"},
                    "context parallelism: ring (ring attention: KV chunks passed around the cp group beside the "
                    "attention compute, causal load balance by chunk pairing; Megatron-Core/Transformer Engine p2p) or "
                    "ulysses (all-to-all of Q, K, V to head-sharded and of the output back, DeepSpeed-Ulysses)")
          .with_default("ring"),
      Field::choice("rank_order", {"tp-cp-dp-pp", "tp-dp-cp-pp", "tp-cp-pp-dp", "tp-dp-pp-cp", "tp-pp-cp-dp", "tp-pp-dp-cp"},
                    "how ranks are numbered, fastest-varying first (GPU g of node n is rank n*gpus_per_node+g): "
                    "Megatron-Core's default tp-cp-dp-pp keeps tp, then cp groups inside a node or NVLink domain; "
                    "tp stays fastest (a tp group is one node's consecutive GPUs)")
          .with_default("tp-cp-dp-pp"),
      Field::choice("tp_variant", {"megatron", "fal", "fal+"},
                    "tensor-parallel block: megatron (2 all-reduces per layer and pass); fal (First Attentions Last: "
                    "MLPs read the first block's attention output, so after the first block a block's attention and MLP "
                    "run on two streams at once and their partial sums share one all-reduce); fal+ (the normalised first attention output is added "
                    "to each block's attention output, which the MLP then needs reduced: both all-reduces remain)")
          .with_default("megatron"),
      Field::boolean("sequence_parallel", "Megatron sequence parallelism: tp all-reduces become reduce-scatter + all-gather")
          .with_default(false),
      Field::choice("tp_comm_overlap", {"none", "wgrad", "pipelined"},
                    "tp communication overlap inside a pass: none (every tp collective blocks, Megatron 2021); wgrad "
                    "(the backward's input-gradient all-reduce runs beside the weight-gradient GEMM of the same "
                    "column-parallel layer, Megatron's async all-reduce; not in a split B/W backward); pipelined (each "
                    "tp collective of a unit is split into tp pieces pipelined with its GEMM, Wang et al. ASPLOS'23; "
                    "needs sequence_parallel; summary.json parallelism.tp_comm_overlap: what ran, none where nothing could)")
          .with_default("none"),
      Field::boolean("overlap_p2p_comm",
                     "Megatron-Core's overlap_p2p_comm: a stage's pipeline sends stay in flight while it computes, "
                     "waited for before its next task of the same direction; only interleaved-1f1b with virtual_stages "
                     "> 1 hosts it (Megatron turns it off otherwise, arguments.py), elsewhere and in serving sends "
                     "block; summary.json parallelism.overlap_p2p_comm says whether it applied")
          .with_default(false),
  };
}

FieldList training_fields() {
  return {
      Field::integer("global_batch", "sequences per iteration").at_least(1),
      Field::integer("micro_batch", "sequences per micro-batch").at_least(1).with_default(1),
      Field::integer("seq_len", "tokens per sequence; auto = model.max_seq_len").at_least(1).or_auto().with_default("auto"),
      Field::integer("iterations", "training iterations simulated").at_least(1).at_most(1000).with_default(1),
      Field::choice("precision", {"bf16", "fp16", "tf32", "fp32"},
                    "high precision of the kernels (FP8 GEMMs: training.fp8)").with_default("bf16"),
      Field::choice("fp8", model::fp8_recipe_names(),
                    "FP8 recipe of the linear layers' GEMMs (Transformer Engine): fp8-delayed and fp8-cs per-tensor "
                    "scaling (Hopper and later), mxfp8 and nvfp4 block scaling (Blackwell); docs/precision.md")
          .with_default("none"),
      Field::choice("attention", {"unfused", "flash"},
                    "attention kernels: unfused (Megatron 2021-22: s^2 scores in HBM) or flash (one fused kernel, "
                    "FlashAttention-2/3 or cuDNN)")
          .with_default("unfused"),
      Field::choice("recompute", {"none", "selective", "full"}, "activation recomputation (Korthikanti et al. 2022)")
          .with_default("none"),
      Field::object("recompute_modules",
                    {Field::boolean("core_attn", "the unfused attention core: scores, softmax, dropout (a fused "
                                                 "kernel keeps no scores: nothing to recompute)")
                         .with_default(true),
                     Field::boolean("mla_up_proj", "multi-head latent attention's query and key/value "
                                                   "up-projections and RoPE, from the kept latents")
                         .with_default(false),
                     Field::boolean("moe_act", "the routed experts' activation function").with_default(false)},
                    "what recompute selective recomputes (Megatron-Core's recompute_modules); the others keep "
                    "these defaults")
          .with_default(EmptyObject{}),
      Field::choice("optimizer", model::optimizer_names(),
                    "adam (fp32 moments) or plain sgd (no momentum, as FlowMoE's training script); its state and step "
                    "traffic per parameter: model/optimizer.hpp")
          .with_default("adam"),
      Field::choice("optimizer_state_precision", {"fp32", "bf16"},
                    "precision of the optimizer's state, its master weights and moments: fp32, or bf16 as apex's "
                    "DistributedFusedAdam with dtype bf16 keeps it (NeMo's optim.dtype); model/optimizer.hpp")
          .with_default("fp32"),
      Field::integer("zero_stage", "ZeRO stage over dp: 1 shards optimizer states (Megatron's distributed optimizer), "
                                   "2 also gradients, 3 also weights (Rajbhandari et al. 2020)")
          .at_least(0).at_most(3).with_default(0),
      Field::boolean("overlap_grad_reduce", "start a gradient bucket's dp all-reduce when it is final").with_default(true),
      Field::boolean("fp8_param_gather", "with an FP8 recipe, the GEMM weights are held only as their FP8 copies "
                                         "(Megatron-Core fp8_param_gather, Transformer Engine FP8 primary weights): no "
                                         "bf16 weight copy beside them (memory only: the ZeRO parameter all-gather "
                                         "stays at training.precision); no effect without training.fp8")
          .with_default(false),
      Field::boolean("grad_reduce_in_fp32", "bf16 training keeps and reduces its gradients in fp32 (Megatron's "
                                            "main_grad); false: in bf16, as NeMo's performance recipes")
          .with_default(true),
      Field::number("grad_bucket_MB", "MB", "gradient bucket size for the dp all-reduce").at_least(0.1).with_default(40.0),
      Field::boolean("scatter_gather_p2p", "split inter-stage activations over tp ranks, re-gather over NVLink")
          .with_default(true),
      Field::object("cuda_graph",
                    {Field::boolean("attn", "the attention block (norm, QKV, attention, projection)").with_default(false),
                     Field::boolean("mlp", "a dense layer's MLP block").with_default(false),
                     Field::boolean("moe_router", "a MoE layer's norm, router and dispatcher preprocessing "
                                                  "(Transformer Engine scopes moe_router and moe_preprocess)")
                         .with_default(false)},
                    "scopes captured as CUDA graphs (Transformer Engine cuda_graph_scope): each pass of a captured "
                    "block costs the host one launch instead of one per kernel; with software.kernel_launch_us 0 "
                    "they change nothing. Dropless MoE experts cannot be captured (their token counts change)")
          .with_default(EmptyObject{}),
  };
}

FieldList network_fields() {
  return {
      Field::choice("model", {"CM02", "LV08", "IB", "ns-3"},
                    "network model: SimGrid flow models CM02 (plain max-min), LV08 (TCP factors), IB (InfiniBand "
                    "penalties), or the ns-3 packet-level model (simgrid-xml platforms with one-link routes only)")
          .with_default("CM02"),
      Field::number("message_overhead_us", "us", "software cost of posting one message or collective step")
          .at_least(0).with_default(0.0),
      Field::choice("collective_algorithm", collectives::algorithm_names(),
                    "algorithm of data-parallel collectives; auto = NCCL-style choice by size and topology")
          .with_default("auto"),
      Field::boolean("fold_replicas",
                     "simulate only the data-parallel replicas that cover two of the topology's repeated units (a "
                     "non-blocking fat-tree's leaf groups, a non-blocking clos3's minipods), the others being "
                     "identical; their collectives keep the whole group's bytes and latency hops "
                     "(docs/performance.md: measured error); false = every replica")
          .with_default(true),
      Field::boolean("aggregate_flows",
                     "re-pair a direct (all-pairs) collective's flows into about one per member inside nodes and one "
                     "across, with the same bytes through every GPU's NVSwitch port and NIC, where the topology's "
                     "fabric beyond the NICs never limits (collectives/aggregate.hpp; docs/performance.md: measured "
                     "error); false = every pair's flow")
          .with_default(true),
  };
}

FieldList faults_fields() {
  return {
      Field::number("horizon_h", "h", "simulated training time the failures are drawn over").at_least(0.001)
          .at_most(87600).with_default(24.0),
      Field::number("sample_s", "s", "bucket of the throughput-over-time CSV").above(0).with_default(60.0),
      Field::integer("spare_nodes", "nodes standing by: a free spare takes a failed node's place after replace_h")
          .at_least(0)
          .with_default(0),
      Field::number("replace_h", "h", "time to bring a spare node in (provisioning, joining)")
          .at_least(limits::kMinOutage_h)
          .with_default(0.25),
  };
}

FieldList kv_cache_fields() {
  return {
      Field::integer("block_size", "tokens per paged KV block").at_least(1).at_most(65536).with_default(16),
      Field::number("memory_utilization", "fraction",
                    "HBM share the replica may fill with weights, activations and KV blocks (vLLM "
                    "gpu_memory_utilization)")
          .above(0).at_most(1).with_default(0.9),
      Field::choice("memory_basis", {"hbm", "free"},
                    "what memory_utilization is a fraction of: the whole HBM, holding weights, "
                    "activations and KV blocks (vLLM gpu_memory_utilization), or the memory weights "
                    "and activations leave, all of it for KV blocks (TensorRT-LLM "
                    "kv_cache_free_gpu_mem_fraction)")
          .with_default("hbm"),
      Field::number("watermark", "fraction", "KV blocks kept free when admitting a prefill (vLLM)")
          .at_least(0).below(1).with_default(0.01),
      Field::choice("preemption", {"recompute", "swap"},
                    "what happens to the preempted sequence's KV blocks when blocks run out: dropped "
                    "and recomputed later, or copied to host memory over PCIe and back (the vllm and "
                    "sarathi schedulers; orca, inflight and static reserve a request's KV at "
                    "admission and never preempt)")
          .with_default("recompute"),
      Field::number("swap_space_GiB", "GiB", "host memory per GPU for swapped-out KV blocks (vLLM); a preempted sequence whose blocks do not fit in what is left is recomputed instead (summary.json serving.swapped_out_blocks: the blocks swapped)")
          .at_least(0).with_default(4.0),
      Field::integer("blocks", "KV blocks per replica; auto = what HBM leaves after weights and "
                               "activations (vLLM's num_gpu_blocks_override)")
          .at_least(1).or_auto().with_default("auto")};
}

FieldList serving_fields() {
  return {
      Field::choice("precision", kPrecisions, "weights, activations and KV cache precision").with_default("bf16"),
      Field::object("engine", engine_fields(),
                    "serving engine preset (configs/engines/, docs/serving.md): its name, or an object with the name "
                    "and fields to override; its costs on the scenario's hardware and its scheduler and KV cache "
                    "defaults are filled in from the preset")
          .with_default(EmptyObject{}),
      Field::number("rate_scale", "factor", "multiplies the workload's request rate (divides its arrival times)")
          .above(0).at_most(1e6).with_default(1.0),
      Field::integer("max_requests", "keep only the first N requests; 0 = all").at_least(0).with_default(0),
      Field::number("duration_s", "s", "drop requests arriving at or after this time; 0 = all").at_least(0)
          .with_default(0.0),
      Field::choice("context_overflow", {"reject", "truncate"},
                    "a request whose prompt leaves no room in the model's context for an output token (prompt >= "
                    "model.max_seq_len): rejected, not served (vLLM), or truncated to its last max_seq_len - 1 "
                    "tokens (vLLM's truncate_prompt_tokens); either way generation stops at the context (prompt + "
                    "output <= max_seq_len)")
          .with_default("reject"),
      Field::object("kv_cache", kv_cache_fields(), "paged KV cache (Kwon et al., vLLM, SOSP 2023)")
          .with_default(EmptyObject{}),
      Field::integer("prefill_replicas",
                     "disaggregation (Splitwise, DistServe): the first N of the dp replicas only prefill and send "
                     "the KV cache over the network to the others, which only decode; 0 = every replica does both")
          .at_least(0).with_default(0),
      Field::object("slo",
                    {Field::number("ttft_ms", "ms", "time-to-first-token objective").above(0).with_default(1000.0),
                     Field::number("tpot_ms", "ms", "time-per-output-token objective (mean over a request's decode)")
                         .above(0).with_default(100.0)},
                    "service-level objectives for goodput and SLO attainment")
          .with_default(EmptyObject{}),
      Field::number("sample_s", "s", "bucket of kv_usage.csv (KV blocks, running and waiting per replica)")
          .at_least(kMinRate).with_default(1.0),
      Field::integer("trace_max_steps", "batches per replica written to trace.json").at_least(0).with_default(20000),
      Field::number("trace_from_s", "s", "trace.json holds the batches starting at or after this time").at_least(0)
          .with_default(0.0),
      Field::number("trace_to_s", "s", "trace.json holds the batches starting before this time; 0 = to the end")
          .at_least(0).with_default(0.0),
      Field::object("capacity_search",
                    {Field::boolean("enabled", "binary search for the highest rate_scale meeting the SLOs")
                         .with_default(false),
                     Field::number("attainment", "fraction", "share of requests that must meet both SLOs")
                         .above(0).at_most(1).with_default(0.9),
                     Field::number("max_scale", "factor", "search rate_scale within [1/max_scale, max_scale]")
                         .above(1).at_most(1e6).with_default(64.0),
                     Field::number("tolerance", "fraction", "stop when the interval is this narrow (relative)")
                         .at_least(1e-6).below(1).with_default(0.02)},
                    "capacity search (DistServe's simulator)")
          .with_default(EmptyObject{}),
  };
}

FieldList output_fields() {
  return {
      Field::boolean("trace", "write trace.json (Chrome trace-event format)").with_default(true),
      Field::integer("trace_max_gpus", "GPUs with trace tracks (the first N ranks) when trace_ranks is auto")
          .at_least(1)
          .with_default(64),
      Field::string("trace_ranks", "GPU ranks with trace tracks (trace.json, events.csv): a list of ranks and "
                                   "inclusive ranges such as \"0-3,8\", or auto (the first trace_max_gpus)")
          .with_default("auto"),
      Field::string("trace_iterations", "training iterations (0-based) with trace events: \"first:last\" "
                                        "(inclusive), one index, or all")
          .with_default("all"),
      Field::boolean("events_csv", "also write events.csv: one row per traced event (rank, stream, iteration, name, "
                                   "category, start_s, end_s, peer, bytes)")
          .with_default(false),
  };
}

const std::vector<PresetSection>& preset_sections() {
  static const std::vector<PresetSection> kSections = {
      {"hardware", "hardware"}, {"cluster", "topologies"}, {"model", "models"}, {"software", "software"}};
  return kSections;
}

}  // namespace llmsim::scenario
