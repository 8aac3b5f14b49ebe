#pragma once
// The parameters each GPU of a training run holds, by part of the model: the dense part (split over tp,
// replicated over dp) and the routed experts (split over ep and tp, replicated over dp/ep). Counts per GPU.
// Layer counts: model/transformer.hpp (layer_params, embedding_params) and model/moe.hpp (moe_layer_params).
#include <vector>

#include "llmsim/scenario/scenario.hpp"

namespace llmsim::workload {

struct ChunkParams {
  double dense = 0, experts = 0;
  double total() const { return dense + experts; }
};

/// Model layer l.
ChunkParams layer_part(const scenario::Scenario& s, int l);
/// The embedding held by global model chunk j (only the first chunk holds it; its vocab x hidden table is
/// split over tp, the position embedding is not).
ChunkParams embedding_part(const scenario::Scenario& s, int j);
/// The final norm and output layer held by global model chunk j of `chunks` (only the last; with tied embeddings
/// and one chunk the output layer is the embedding itself).
ChunkParams head_part(const scenario::Scenario& s, int j, int chunks);
/// Global model chunk j of `chunks`, model layers [first, first + layers).
ChunkParams chunk_params(const scenario::Scenario& s, int j, int chunks, int first, int layers);

/// Gradients of a model chunk that become final together: `layer` -1 after the chunk's last backward, else
/// after that model layer's backward (per-layer gradients, FlowMoE; the output layer is layer number
/// model.transformer_layers(), after the MTP layers model.layers ..).
struct GradientPart {
  ChunkParams params;
  int layer = -1;
};

/// The gradient parts of global chunk j (model layers [first, first + layers)): the whole chunk at once, or with
/// `per_layer` its embedding at the chunk's end, then one part per layer and the head.
std::vector<GradientPart> gradient_parts(const scenario::Scenario& s, int j, int chunks, int first, int layers,
                                         bool per_layer);

}  // namespace llmsim::workload
