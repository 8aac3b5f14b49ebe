#pragma once
// The paged KV cache of one replica (Kwon et al., "Efficient Memory Management for Large Language Model Serving
// with PagedAttention", SOSP 2023): the KV of a sequence lives in blocks of `block_size` tokens.
//   bytes per token per GPU = 2 (K and V) * layers/pp * max(1, kv_heads/tp) * head_dim * bytes per element
//   blocks = floor((memory_utilization * HBM - weights - activations) / (block_size * bytes per token))
//            (kv_cache.memory_basis "hbm", vLLM's gpu_memory_utilization), or
//   blocks = floor(memory_utilization * (HBM - weights - activations) / (block_size * bytes per token))
//            ("free", TensorRT-LLM's kv_cache_free_gpu_mem_fraction)
// weights = the parameters one GPU of the replica holds (model/transformer.hpp counts, every expert of a MoE
// layer split over tp, embeddings on the first stage, head on the last in edge_precision (step_model.hpp): the
// stage with the most counts), activations = the peak of one forward pass of
// max_batched_tokens tokens: T * e * (2h + (h + 2 kv d)/tp + 2 f/tp) (input and residual, QKV, gate and up
// projections of the widest layer) plus the fp32 logits of max_batch_size sampled tokens, b * 4 V / tp.
#include <string>

#include "llmsim/scenario/scenario.hpp"

namespace llmsim::serving {

struct KvGeometry {
  double bytes_per_token = 0;  ///< [bytes] per GPU
  double block_bytes = 0;      ///< [bytes] per GPU
  double weight_bytes = 0;     ///< [bytes] per GPU (largest stage)
  double activation_bytes = 0; ///< [bytes] per GPU, peak of a forward pass
  int block_size = 0;
  long blocks = 0;             ///< KV blocks of the replica (each spans all its GPUs)
  long swap_blocks = 0;        ///< blocks that fit in the host swap space
};

/// Throws ScenarioError at /serving/kv_cache when the weights and activations leave no block.
/// `max_batched_tokens` and `max_batch_size` are the scheduler's limits.
KvGeometry kv_geometry(const scenario::Scenario& s, int max_batched_tokens, int max_batch_size);

/// Block pool of one replica.
class KvBlocks {
 public:
  KvBlocks(long total, int block_size) : total_(total), block_size_(block_size) {}
  long blocks_for(long tokens) const { return (tokens + block_size_ - 1) / block_size_; }
  long free() const { return total_ - used_; }
  long used() const { return used_; }
  long total() const { return total_; }
  int block_size() const { return block_size_; }
  bool can_take(long n) const { return n <= free(); }
  void take(long n) { used_ += n; }
  void give(long n) { used_ -= n; }

 private:
  long total_, used_ = 0;
  int block_size_;
};

}  // namespace llmsim::serving
