#pragma once
// Megatron-Core's custom pipeline layout (`pipeline_model_parallel_layout`, Megatron-LM
// megatron/core/transformer/pipeline_parallel_layer_layout.py, parse_str_to_list): a string of the model's
// slots in order, one character each — E the input embedding, t a transformer layer, L the output layer and
// loss, m a multi-token-prediction layer — with '|' ending a model chunk, "x*n" repeating one character,
// "(...)*n" repeating a group (not nested) and ',' ignored (cosmetic). The chunks are the model's global chunks in
// order (the schedule places them: interleaved 1F1B puts chunk i on stage i mod pp, as Megatron; the V-shaped
// schedules chunks s and 2pp-1-s on stage s), so a layout of pp * v chunks fixes every chunk's layers.
// Example (Megatron-Bridge's DeepSeek-V3 recipe on GB300, pp 4 x vp 4): "Et*4|(t*4|)*14tmL".
#include <string>
#include <vector>

namespace llmsim::strategy {

/// One model chunk of a layout.
struct LayoutChunk {
  int layers = 0;          ///< transformer layers (t)
  int mtp_layers = 0;      ///< multi-token-prediction layers (m)
  bool embedding = false;  ///< holds the input embedding (E)
  bool loss = false;       ///< holds the output layer and loss (L)
};

/// The chunks of `layout`, in global chunk order. Throws ScenarioError at `path` for a character other than
/// E, t, L, m, |, ',', '*', digits and parentheses; a repetition without a count or of more than 100,000; a group
/// without "*n" (Megatron refuses it too); nested or unbalanced parentheses; more than 100,000 slots in all; an E
/// that is not the first slot or an L that is not the last (Megatron's validate_layer_layout). How many of each
/// the model needs is the caller's check.
std::vector<LayoutChunk> parse_pipeline_layout(const std::string& layout, const std::string& path);

}  // namespace llmsim::strategy
