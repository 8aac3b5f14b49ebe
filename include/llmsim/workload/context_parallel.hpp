#pragma once
// Context parallelism (parallelism.cp > 1): every micro-batch's sequences are split over the cp ranks of a
// context-parallel group, each rank holding seq_len / cp tokens of each sequence; its linear layers, norms and
// the tp collectives of those tokens run on them, and attention needs the keys and values of the whole sequence:
//   ring     ring attention (Liu et al. 2023, "Ring Attention with Blockwise Transformers", Sec. 3; Megatron-Core's
//            p2p context parallelism in Transformer Engine): the K and V chunks travel around the group, each rank
//            computing the block of its queries against the chunk it holds while it passes that chunk on. Here one
//            ring all-gather of the 2 b s (kv/t) d e bytes of K and V per rank (cp-1 neighbour steps, the same
//            bytes and pattern) runs beside the attention kernels (workload/chunk_passes.hpp); the backward
//            passes K, V and their gradients, twice the bytes. The sequence is cut into 2cp chunks and rank r
//            holds chunks r and 2cp-1-r, so every rank gets the same share of the causal triangle.
//   ulysses  DeepSpeed-Ulysses (Jacobs et al. 2023, Sec. 3.1): an all-to-all turns the sequence-sharded Q, K, V
//            (b s (a/t + 2 kv/t) d e bytes per rank) into head-sharded ones for the whole sequence; after the
//            attention core an all-to-all of the output (b s (a/t) d e) turns it back; the backward mirrors both.
//            The exchanges block.
// Rank layout (parallelism.rank_order, Megatron-Core's RankGenerator): the cp ranks of a group differ only in
// their cp coordinate; with the default tp-cp-dp-pp order they are consecutive tp groups, so a cp group with
// tp*cp <= gpus_per_node stays inside one node's NVLink domain and spills over the network only beyond it.
// Gradients are reduced over dp * cp ranks (Parallelism::dp_cp), as Megatron-Core's data-parallel group with cp.
#include <functional>
#include <vector>

#include "llmsim/scenario/scenario.hpp"
#include "llmsim/workload/program.hpp"

namespace llmsim::workload {

enum class CpExchange { RingForward, RingBackward, UlyssesIn, UlyssesOut, UlyssesOutGrad, UlyssesInGrad, Count };
/// Exchange keys of Segment::exchange: context-parallel keys sit above every MoE key (moe_exchange_key,
/// 4 per MoE layer).
constexpr int kCpKeyBase = 1 << 30;
inline int cp_exchange_key(CpExchange e) { return kCpKeyBase + static_cast<int>(e); }
inline bool is_cp_exchange_key(int key) { return key >= kCpKeyBase; }

struct CpExchanges {
  int dp = 1;
  /// [stage][dp index][CpExchange] -> the CollectiveSpec (one); empty without context parallelism
  std::vector<std::vector<std::vector<std::vector<int>>>> spec;
  /// The specs of exchange `key` for replica `replica` (= cp rank * dp + dp index) on `stage`.
  const std::vector<int>& of(int stage, int replica, int key) const {
    return spec[stage][replica % dp][key - kCpKeyBase];
  }
};

/// Adds the context-parallel groups (one per stage and dp index: the cp replicas c * dp + d) and the specs of
/// the variant's exchanges to `w`, whose workers are placed already; `worker_of(stage, replica)` as in
/// TrainingLayout. Nothing without context parallelism.
CpExchanges add_cp_exchanges(const scenario::Scenario& s, int pp, const std::function<int(int, int)>& worker_of,
                             Workload& w);

}  // namespace llmsim::workload
