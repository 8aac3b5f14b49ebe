#include "llmsim/workload/memory.hpp"

namespace llmsim::workload {

double layer_activation_bytes(const scenario::Scenario& s, const std::string& recompute) {
  const double sbh = double(s.training.seq_len) * s.training.micro_batch * s.model.hidden;
  const double t = s.parallelism.tp, a = s.model.heads, h = s.model.hidden, seq = s.training.seq_len;
  const bool sp = s.parallelism.sequence_parallel;
  const double attention = 5 * a * seq / (h * t);
  if (recompute == "full") return 2 * sbh / (sp ? t : 1);
  const double base = sp ? 34 / t : 10 + 24 / t;
  return sbh * (base + (recompute == "selective" ? 0 : attention));
}

double moe_layer_activation_bytes(const scenario::Scenario& s, const std::string& recompute) {
  const double dense = layer_activation_bytes(s, recompute);
  if (recompute == "full") return dense;  // only the layer input is kept
  const auto& moe = s.model.moe;
  const double sbh = double(s.training.seq_len) * s.training.micro_batch * s.model.hidden, t = s.parallelism.tp;
  const double input = s.parallelism.sequence_parallel ? 2 * sbh / t : 2 * sbh;  // one copy of the MLP input
  const double ffn = 16 * sbh / t;                                                // two b*s*4h intermediates
  const double experts = double(moe.top_k + moe.shared_experts) * moe.expert_ffn_hidden / (4.0 * s.model.hidden);
  return dense - input - ffn + moe.top_k * input + ffn * experts;
}

double chunk_activation_bytes(const scenario::Scenario& s, int first, int layers, const std::string& recompute) {
  double bytes = 0;
  for (int l = first; l < first + layers; ++l)
    bytes += s.model.moe.is_moe_layer(l) ? moe_layer_activation_bytes(s, recompute) : layer_activation_bytes(s, recompute);
  return bytes;
}

MemoryBreakdown state_memory(const scenario::Scenario& s, double params) {
  const auto& prec = s.training.precision;
  const double e = prec == "fp32" || prec == "tf32" ? 4 : (prec == "fp8" ? 1 : 2);
  MemoryBreakdown m;
  const int z = s.training.zero_stage;
  const double dp = s.parallelism.dp;
  m.weights = params * e / (z >= 3 ? dp : 1);
  m.gradients = params * (prec == "bf16" ? 4 : e) / (z >= 2 ? dp : 1);
  m.optimizer = params * 12 / (z >= 1 ? dp : 1);
  return m;
}

double activation_memory(const scenario::Scenario& s, double set_bytes, int max_in_flight) {
  double bytes = set_bytes * max_in_flight;
  if (s.training.recompute == "full") bytes += layer_activation_bytes(s, "none");
  return bytes;
}

MemoryBreakdown stage_memory(const scenario::Scenario& s, double params, double set_bytes, int max_in_flight) {
  MemoryBreakdown m = state_memory(s, params);
  m.activations = activation_memory(s, set_bytes, max_in_flight);
  return m;
}

}  // namespace llmsim::workload
