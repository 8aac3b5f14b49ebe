#include "llmsim/workload/model_parts.hpp"

#include "llmsim/model/moe.hpp"
#include "llmsim/model/transformer.hpp"

namespace llmsim::workload {

ChunkParams layer_part(const scenario::Scenario& s, int l) {
  const auto& m = s.model;
  const double t = s.parallelism.tp;
  if (!m.moe.is_moe_layer(l)) return {model::layer_params(m) / t, 0};
  return {model::moe_layer_params(m, 0) / t,
          double(m.moe.experts) / s.parallelism.ep * model::ffn_params(m, m.moe.expert_ffn_hidden) / t};
}

ChunkParams embedding_part(const scenario::Scenario& s, int j) {
  const auto& m = s.model;
  if (j != 0) return {};
  return {model::embedding_params(m) - double(m.vocab) * m.hidden + double(m.vocab) * m.hidden / s.parallelism.tp, 0};
}

ChunkParams head_part(const scenario::Scenario& s, int j, int chunks) {
  const auto& m = s.model;
  if (j != chunks - 1) return {};
  ChunkParams p{2.0 * m.hidden, 0};  // final norm
  if (!m.tied_embeddings || chunks > 1) p.dense += double(m.vocab) * m.hidden / s.parallelism.tp;  // (a tied copy)
  if (m.mtp_layers > 0) {  // MTP: per module its [embedding; hidden] projection and three norms, and one copy of
    const double h = m.hidden, t = s.parallelism.tp;  // the embedding its tokens are looked up in (DeepSeek-V3
    p.dense += m.mtp_layers * (2 * h * h / t + 3 * h) + (chunks > 1 ? double(m.vocab) * h / t : 0);  // Sec. 2.2)
  }
  return p;
}

ChunkParams chunk_params(const scenario::Scenario& s, int j, int chunks, int first, int layers) {
  ChunkParams p = embedding_part(s, j);
  p.dense += head_part(s, j, chunks).dense;
  for (int l = first; l < first + layers; ++l) {
    const ChunkParams x = layer_part(s, l);
    p.dense += x.dense, p.experts += x.experts;
  }
  return p;
}

std::vector<GradientPart> gradient_parts(const scenario::Scenario& s, int j, int chunks, int first, int layers,
                                         bool per_layer) {
  if (!per_layer) return {{chunk_params(s, j, chunks, first, layers), -1}};
  std::vector<GradientPart> out = {{embedding_part(s, j), -1}};
  for (int l = first; l < first + layers; ++l) out.push_back({layer_part(s, l), l});
  out.push_back({head_part(s, j, chunks), s.model.transformer_layers()});
  return out;
}

}  // namespace llmsim::workload
