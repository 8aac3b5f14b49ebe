#pragma once
// Time of one forward step of a serving replica (tp x pp GPUs), from the compute model (hardware/compute_model.hpp,
// calibrated once per device) and the collective library:
//   step = sum over the pp stages of [ layers_of_stage * (kernel times of inference_attention and
//          inference_token_kernels + 2 tp all-reduces of T h max(2, e) bytes: FP8/INT8 GEMMs write 16-bit
//          activations) ] (a MoE layer with its experts' FFN, model/inference.hpp) + embedding (first stage) + head
//          (last stage) + (pp - 1) sends of T h e bytes between stages + kernel-launch costs included per kernel
//        + serving-engine costs: step_overhead + sequence_overhead * sequences + collectives * hop * ceil(log2 tp)
// (serving.engine, scenario/engine_preset.hpp: fitted per engine and device to published tables, e.g. a 2023
// vLLM spends milliseconds per decode step outside the GPU kernels, docs/serving.md). Kernels run at the
// device's serving efficiencies times the engine's multipliers (serving_hardware).
// The tp all-reduce is NCCL's choice for a group of tp GPUs behind the node's NVSwitch (collectives/auto_select.hpp:
// ring, tree or in-switch reduction by their alpha-beta estimates). A replica runs one step at a time (no
// micro-batch pipelining across stages: with pp > 1 each stage idles while the others run).
#include <unordered_map>

#include "llmsim/collectives/collective.hpp"
#include "llmsim/collectives/auto_select.hpp"
#include "llmsim/hardware/compute_model.hpp"
#include "llmsim/hardware/power_model.hpp"
#include "llmsim/model/inference.hpp"
#include "llmsim/scenario/scenario.hpp"

namespace llmsim::serving {

/// One step's time and energy above idle (StepModel::step).
struct StepCost {
  double time = 0;    ///< [s]
  double energy = 0;  ///< [J] over the replica's tp x pp GPUs
};

class StepModel {
 public:
  explicit StepModel(const scenario::Scenario& s);
  /// [s] of one step of the whole replica; `sequences` in the step (the engine's per-sequence cost).
  double step_time(const model::InferenceStep& st, int sequences) const;
  /// [s] of one step prefilling `prompts` prompts of `tokens` tokens each (context 0), each producing its first
  /// token: one batch through the token kernels, one attention core per prompt.
  double prefill_time(int tokens, int prompts = 1) const;
  /// [s] of one decode step of `batch` sequences with `context` tokens each in their KV cache.
  double decode_time(int batch, int context) const;
  /// [s] one tp all-reduce of `bytes` per GPU.
  double tp_all_reduce(double bytes) const;
  /// The step's time (step_time) and its energy above idle power over the replica's tp x pp GPUs: each GPU's
  /// kernels (its stage's layers, the embedding on the first stage, the head on the last) by
  /// hardware/power_model.hpp (0 without a power model). Collectives, stage sends and engine costs draw idle power.
  StepCost step(const model::InferenceStep& st, int sequences) const;

 private:
  /// [s] and [J] above idle of one layer's kernels that depend only on the token count
  /// (model::inference_token_kernels; with the MoE FFN and its engine multiplier when `moe`), remembered by count.
  hardware::TimeAndEnergy token_cost(double tokens, bool moe) const;
  hardware::ComputeModel cm_;
  model::LayerShape x_;
  model::LayerShape x_edge_;  ///< embedding and head: edge_precision
  collectives::GroupLayout tp_group_;
  collectives::LinkParams links_;
  double stage_send_bandwidth_ = 0, stage_send_latency_ = 0;  ///< between consecutive pp stages
  scenario::Engine engine_;
  double tree_levels_ = 0;  ///< ceil(log2 tp)
  int layers_ = 0, stages_ = 1;  ///< of the whole model; pp
  int moe_layers_ = 0;           ///< layers with a MoE FFN (model.moe)
  model::InferenceMoe moe_;
  /// tp_all_reduce by message size: its algorithm choice and estimate cost about 6% of a long run's CPU, and
  /// steps repeat the same token counts. SimGrid runs the replicas' actors one at a time in one thread, and
  /// this makes no simcall: sharing the model between replicas is safe.
  mutable std::unordered_map<double, double> all_reduce_times_;
  mutable std::unordered_map<double, hardware::TimeAndEnergy> dense_token_costs_, moe_token_costs_;
};

/// The hardware of a serving replica: its calibration's matmul and memory efficiencies are the serving ones
/// (hardware.calibration.serving_*, or the training ones where those are 0) times the engine's multipliers.
scenario::Hardware serving_hardware(const scenario::Scenario& s);

/// The precision of the embedding and the LM head when serving in `p`: FP8 and INT8 quantisation (TensorRT-LLM
/// with ModelOpt, vLLM) quantises the transformer layers' linear weights only, the embedding table and the LM head
/// stay 16-bit (bf16); other precisions are kept.
model::Precision edge_precision(model::Precision p);

/// The layer shape of a serving replica (tp, the model's dimensions, serving.precision).
model::LayerShape serving_shape(const scenario::Scenario& s);

}  // namespace llmsim::serving
