#include "llmsim/serving/kv_cache.hpp"

#include <algorithm>
#include <cmath>

#include "llmsim/model/inference.hpp"
#include "llmsim/serving/step_model.hpp"
#include "llmsim/util/error.hpp"

namespace llmsim::serving {

KvGeometry kv_geometry(const scenario::Scenario& s, int max_batched_tokens, int max_batch_size) {
  const auto x = serving_shape(s);
  const auto& m = s.model;
  const int pp = s.parallelism.pp;
  const double e = x.bytes_per_element(), t = x.t;
  const int stage_layers = (m.layers + pp - 1) / pp;  // the largest stage
  double stage_params = 0;  // of the stage with the most parameters
  for (int first = 0; first < m.layers; first += stage_layers) {
    double p = 0;
    for (int l = first; l < std::min(m.layers, first + stage_layers); ++l)
      p += m.moe.is_moe_layer(l) ? model::moe_layer_params(m, m.moe.experts) : model::layer_params(m);
    stage_params = std::max(stage_params, p);
  }
  const double embedding = model::embedding_params(m), head = m.tied_embeddings ? 0.0 : double(m.vocab) * m.hidden;
  const double edge = pp == 1 ? embedding + head : std::max(embedding, head);  // first or last stage
  KvGeometry g;
  g.block_size = s.serving.kv_cache.block_size;
  g.bytes_per_token = stage_layers * model::kv_bytes_per_token_layer(x);
  g.block_bytes = g.block_size * g.bytes_per_token;
  g.weight_bytes = (e * stage_params + model::bytes_per_element(edge_precision(x.precision)) * edge) / t;
  const double T = max_batched_tokens;
  g.activation_bytes = T * e * (2 * x.h + (x.a / t + 2 * std::max(1.0, x.kv / t)) * x.d + 2 * x.f / t) +
                       double(max_batch_size) * 4 * x.vocab / t;
  const auto& c = s.serving.kv_cache;
  const double budget = c.free_basis ? s.hardware.memory_bytes : c.memory_utilization * s.hardware.memory_bytes;
  const double left = (budget - g.weight_bytes - g.activation_bytes) * (c.free_basis ? c.memory_utilization : 1);
  g.blocks = left > 0 ? static_cast<long>(std::floor(left / g.block_bytes)) : 0;
  if (s.serving.kv_cache.blocks > 0 && left > 0) g.blocks = s.serving.kv_cache.blocks;
  if (g.blocks < 1)
    throw ScenarioError("/serving/kv_cache/memory_utilization",
                        "no room for a KV block: " + std::to_string(budget / 1e9) + " GB usable per GPU, weights " +
                            std::to_string(g.weight_bytes / 1e9) + " GB, activations " +
                            std::to_string(g.activation_bytes / 1e9) +
                            " GB (raise tp or pp, memory_utilization, or lower the scheduler's max_batched_tokens)");
  g.swap_blocks = static_cast<long>(std::floor(s.serving.kv_cache.swap_space / g.block_bytes));
  return g;
}

}  // namespace llmsim::serving
