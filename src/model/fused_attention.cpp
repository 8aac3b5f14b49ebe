#include "llmsim/model/fused_attention.hpp"

namespace llmsim::model {

Kernel fused_attention_forward(const LayerShape& x) {
  const double heads = x.a / x.t, kv_heads = x.kv_heads_per_rank(), e = x.bytes_per_element();
  const double tokens = x.b * x.s;  // this rank's tokens (its sequence chunk with context parallelism)
  const double dv = x.value_dim();  // MLA: keys d wide, values dv
  // Ring attention reads its queries against all cp chunks of K and V; Ulysses reads and writes the same
  // elements in head-sharded form (the whole sequence, 1/cp of the heads).
  const double kv_reads = x.ulysses ? 1 : x.cp;
  Kernel k = elementwise("flash_attention", Category::Attention,
                         e * (tokens * heads * (x.d + dv) + tokens * kv_heads * (x.d + dv) * kv_reads) +
                             4 * tokens * heads);
  k.flops = 2 * x.b * heads * x.s * x.s * (x.d + dv) * x.cp * (x.causal ? 0.5 : 1);
  k.precision = x.precision;
  k.kind = KernelKind::FusedAttentionForward;
  k.seq = x.ulysses ? x.s * x.cp : x.s;
  return k;
}

Kernel fused_attention_backward(const Kernel& forward) {
  Kernel k = forward;
  k.name += "_dgrad";
  k.flops *= 2.5;
  k.bytes *= 2;
  k.kind = KernelKind::FusedAttentionBackward;
  return k;
}

}  // namespace llmsim::model
