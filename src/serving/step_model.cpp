#include "llmsim/serving/step_model.hpp"

#include <algorithm>
#include <cmath>

#include "llmsim/hardware/power_model.hpp"
#include "llmsim/platform/node.hpp"

namespace llmsim::serving {

model::Precision edge_precision(model::Precision p) {
  return model::bytes_per_element(p) < 2 ? model::Precision::Bf16 : p;
}

model::LayerShape serving_shape(const scenario::Scenario& s) {
  model::LayerShape x;
  const auto& m = s.model;
  x.h = m.hidden;
  x.a = m.heads;
  x.kv = m.kv_heads;
  x.d = m.head_dim;
  x.f = m.ffn_hidden;
  x.t = s.parallelism.tp;
  x.vocab = m.vocab;
  x.swiglu = m.activation == "swiglu";
  x.precision = model::precision_from_name(s.serving.precision, "/serving/precision");
  return x;
}

scenario::Hardware serving_hardware(const scenario::Scenario& s) {
  scenario::Hardware hw = s.hardware;
  auto& c = hw.calibration;
  const auto& e = s.serving.engine;
  const auto serving_or = [](double serving, double training) { return serving > 0 ? serving : training; };
  c.matmul_efficiency = serving_or(c.serving_matmul_efficiency, c.matmul_efficiency) * e.matmul_multiplier;
  c.matmul_half_dim = serving_or(e.matmul_half_dim, serving_or(c.serving_matmul_half_dim, c.matmul_half_dim));
  c.memory_efficiency = serving_or(c.serving_memory_efficiency, c.memory_efficiency) * e.memory_multiplier;
  return hw;
}

StepModel::StepModel(const scenario::Scenario& s)
    : cm_(serving_hardware(s)), x_(serving_shape(s)), engine_(s.serving.engine),
      tree_levels_(std::ceil(std::log2(static_cast<double>(s.parallelism.tp)))), layers_(s.model.layers),
      stages_(s.parallelism.pp) {
  x_edge_ = x_;
  x_edge_.precision = edge_precision(x_.precision);
  const auto& moe = s.model.moe;
  for (int l = 0; l < layers_; ++l) moe_layers_ += moe.is_moe_layer(l);
  moe_ = {double(moe.experts), double(moe.top_k), double(moe.expert_ffn_hidden)};
  tp_group_.node_of_member.assign(s.parallelism.tp, 0);
  tp_group_.switch_reduction = s.hardware.nvswitch_reduction && s.cluster.intra_node == "nvswitch";
  links_.intra_bandwidth = platform::intra_node_group_bandwidth(s.cluster, cm_.nvlink_bandwidth(), s.parallelism.tp);
  const double pair_bandwidth = platform::intra_node_group_bandwidth(s.cluster, cm_.nvlink_bandwidth(), 2);
  links_.intra_latency = cm_.nvlink_latency();
  links_.inter_bandwidth = s.cluster.nic_bandwidth * s.hardware.calibration.network_efficiency;
  links_.inter_latency = s.cluster.nic_latency;
  // Consecutive stages sit on the same node while tp * pp fits in it, else they cross the network.
  const bool same_node = s.parallelism.tp * stages_ <= s.cluster.gpus_per_node;
  stage_send_bandwidth_ = same_node ? pair_bandwidth : links_.inter_bandwidth;  // a send goes to one peer
  stage_send_latency_ = same_node ? links_.intra_latency : links_.inter_latency;
}

namespace {
/// `known[key]`, computed by `compute()` the first time.
template <class Value, class Compute>
Value remembered(std::unordered_map<double, Value>& known, double key, Compute compute) {
  if (const auto it = known.find(key); it != known.end()) return it->second;
  return known.emplace(key, compute()).first->second;
}
}  // namespace

hardware::TimeAndEnergy StepModel::token_cost(double tokens, bool moe) const {
  return remembered(moe ? moe_token_costs_ : dense_token_costs_, tokens, [&] {
    auto c = hardware::time_and_energy(cm_, model::inference_token_kernels(x_, tokens, moe ? moe_ : model::InferenceMoe{}));
    // The engine's MoE kernels reach moe_multiplier of the dense kernels' efficiency (their time divided by it).
    if (moe) {
      const auto ffn = hardware::time_and_energy(cm_, model::inference_moe_ffn(x_, tokens, moe_));
      c.time += (1 / engine_.moe_multiplier - 1) * ffn.time;
      c.energy += (1 / engine_.moe_multiplier - 1) * ffn.energy;
    }
    return c;
  });
}

double StepModel::tp_all_reduce(double bytes) const {
  if (x_.t <= 1) return 0;
  return remembered(all_reduce_times_, bytes, [&] {
    const auto kind = collectives::Kind::AllReduce;
    return collectives::estimate(kind, collectives::choose(kind, tp_group_, bytes, links_), tp_group_, bytes, links_);
  });
}

StepCost StepModel::step(const model::InferenceStep& st, int sequences) const {
  // FP8 and INT8 GEMMs write 16-bit outputs: what the all-reduces and stage sends carry is never narrower.
  const double activation = st.tokens() * x_.h * std::max(2.0, x_.bytes_per_element());
  const double collectives = 2 * tp_all_reduce(activation);
  const double sends = (stages_ - 1) * (activation / stage_send_bandwidth_ + stage_send_latency_);
  const double engine = engine_.step_overhead + engine_.sequence_overhead * sequences +
                        2 * layers_ * engine_.collective_hop * tree_levels_;
  const auto attention = hardware::time_and_energy(cm_, model::inference_attention(x_, st));
  const auto embedding = hardware::time_and_energy(cm_, model::inference_embedding(x_edge_, st));
  const auto head = hardware::time_and_energy(cm_, model::inference_head(x_edge_, st));
  const double dense = layers_ - moe_layers_, tokens = st.tokens();
  const auto dense_tokens = dense > 0 ? token_cost(tokens, false) : hardware::TimeAndEnergy{};
  const auto moe_tokens = moe_layers_ > 0 ? token_cost(tokens, true) : hardware::TimeAndEnergy{};
  StepCost c;
  c.time = layers_ * (attention.time + collectives) + embedding.time + head.time + sends + engine +
           dense * dense_tokens.time + moe_layers_ * moe_tokens.time;
  // each tp GPU runs its share of the same kernels (0 without a power model)
  c.energy = x_.t * (layers_ * attention.energy + embedding.energy + head.energy + dense * dense_tokens.energy +
                     moe_layers_ * moe_tokens.energy);
  return c;
}

double StepModel::step_time(const model::InferenceStep& st, int sequences) const { return step(st, sequences).time; }

double StepModel::prefill_time(int tokens, int prompts) const {
  model::InferenceStep st;
  st.prefill.assign(prompts, {static_cast<double>(tokens), 0});
  st.sampled = prompts;
  return step_time(st, prompts);
}

double StepModel::decode_time(int batch, int context) const {
  model::InferenceStep st;
  st.decode_seqs = batch;
  st.decode_context = static_cast<double>(batch) * context;
  st.sampled = batch;
  return step_time(st, batch);
}

}  // namespace llmsim::serving
