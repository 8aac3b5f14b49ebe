#include "llmsim/workload/chunk_passes.hpp"

#include <algorithm>
#include <set>
#include <string>

#include "llmsim/collectives/ring.hpp"
#include "llmsim/model/moe.hpp"
#include "llmsim/model/transformer.hpp"
#include "llmsim/platform/node.hpp"
#include "llmsim/workload/context_parallel.hpp"
#include "llmsim/workload/kernel_cost.hpp"

namespace llmsim::workload {

namespace {

using collectives::Kind;
using model::concat;
using model::Kernel;
using Kernels = std::vector<Kernel>;

/// The GEMMs of `forward` that read the unit's (tp-gathered) input: QKV (MLA: the query and key/value down- or
/// direct projections), FFN up, expert and shared-expert up, logits; their wgrad can hide the input-gradient AR.
Kernels column_parallel(const Kernels& forward) {
  static const std::set<std::string> input_side = {"qkv",       "q_down",    "q_proj", "kv_down",
                                                   "ffn_up",    "expert_up", "shared_up", "logits"};
  Kernels out;
  for (const auto& k : forward)
    if (input_side.count(k.name)) out.push_back(k);
  return out;
}

/// A unit of a layer: its forward kernels, whether a tp all-reduce follows it in the forward and in the
/// backward, and the MoE exchange (key, -1 none) after it in the forward and after its dgrad in the backward.
struct Unit {
  std::string name;
  Kernels forward;
  bool forward_collective = true, backward_collective = true;
  int forward_exchange = -1, backward_exchange = -1;
  int repeat = 1;  ///< runs per pass (pipelined MoE chunks); `forward` is one run's work
  /// Ring attention's core: the exchanges (keys) that run beside its first `ring_share` forward and backward.
  int ring_forward = -1, ring_backward = -1;
  double ring_share = 0;
  /// Kernels on a second stream beside `forward` in every pass (FAL's MLP beside its attention;
  /// hardware/concurrent_kernels.hpp), empty: one stream.
  Kernels beside = {};
  bool captured = false;   ///< replayed as a CUDA graph in every pass (training.cuda_graph): one host launch
  bool host_sync = false;  ///< the host synchronises before the forward exchange (dropless dispatcher)
};

Kernels scaled(Kernels kernels, double share) {
  for (auto& k : kernels) k.flops *= share, k.bytes *= share;
  return kernels;
}

/// The attention block as units: one, or with context parallelism [norm, QKV], the core and [projection,
/// dropout + residual] with the variant's exchanges (header).
std::vector<Unit> attention_units(const model::LayerShape& x, const Kernels& attention) {
  if (x.cp == 1) return {{"attention", attention}};
  const auto core = std::find_if(attention.begin(), attention.end(),
                                 [](const Kernel& k) { return k.kind == model::KernelKind::FusedAttentionForward; });
  const Kernels pre(attention.begin(), core), post(core + 1, attention.end());
  auto key = [](CpExchange e) { return cp_exchange_key(e); };
  if (x.ulysses)
    return {{"attention qkv", pre, false, true, key(CpExchange::UlyssesIn), -1},
            {"attention core", {*core}, false, false, key(CpExchange::UlyssesOut), key(CpExchange::UlyssesInGrad)},
            {"attention out", post, true, false, -1, key(CpExchange::UlyssesOutGrad)}};
  // Ring attention merges each step's partial output into the running one with its logsumexp (Transformer
  // Engine's flash_attn_fwd_out_correction): per step it reads the step's output (2 bytes per element) and reads
  // and writes the fp32 accumulator (8 bytes) of this rank's b (s/cp) (a/t) d outputs; the backward's dQ
  // accumulation is that kernel's backward (element-wise: 1.5x its bytes).
  const double outputs = x.b * x.s * (x.a / x.t) * x.d;
  const Kernels corrected = {*core, model::elementwise("ring_out_correction", model::Category::Attention,
                                                       x.cp * 10 * outputs)};
  Unit ring{"attention core", corrected, false, false};
  ring.ring_forward = key(CpExchange::RingForward), ring.ring_backward = key(CpExchange::RingBackward);
  ring.ring_share = (x.cp - 1) / x.cp;
  return {{"attention qkv", pre, false, true}, ring, {"attention out", post, true, false}};
}

/// Turns kernel lists into ComputeCosts and segments.
class Builder {
 public:
  Builder(const scenario::Scenario& s, const hardware::ComputeModel& cm, std::vector<ComputeCost>& costs)
      : s_(s), cm_(cm), costs_(costs) {
    const auto x = model::LayerShape::from(s);
    const int t = s.parallelism.tp;
    const double bytes = model::tp_activation_bytes(x), lat = cm.nvlink_latency();
    const double bw = platform::intra_node_group_bandwidth(s.cluster, cm.nvlink_bandwidth(), t);
    ar_ = s.parallelism.sequence_parallel
              ? collectives::ring_time(Kind::AllGather, t, bytes, bw, lat) + collectives::ring_time(Kind::ReduceScatter, t, bytes, bw, lat)
              : collectives::ring_time(Kind::AllReduce, t, bytes, bw, lat);
    gather_ = collectives::ring_time(Kind::AllGather, t, bytes, bw, lat);
  }

  /// A segment of `kernels` followed by one tp collective when `with_collective`; `hides` are the kernels that
  /// run beside that collective when the pass is a whole backward under tp_comm_overlap "wgrad".
  /// `beside` runs on a second stream concurrently with `kernels`.
  /// A `captured` segment is one CUDA graph: the host issues it with one launch.
  Segment segment(const std::string& name, const Kernels& kernels, bool with_collective, const Kernels& hides = {},
                  const Kernels& beside = {}, bool captured = false) {
    Segment seg;
    ComputeCost c = kernel_cost(name, kernels, beside, cm_);
    const double launches = captured ? 1 : model::total_launches(kernels) + model::total_launches(beside);
    c.host = kernels.empty() && beside.empty() ? 0 : launches * s_.software.kernel_launch * s_.hardware.host_cpu_slowdown;
    seg.compute = add(c);
    if (!with_collective || s_.parallelism.tp == 1) return seg;
    double exposed = ar_;
    const std::string& overlap = s_.parallelism.tp_comm_overlap;
    if (overlap == "pipelined") {
      const double n = s_.parallelism.tp, g = c.by_category[static_cast<int>(TimeCategory::Gemm)];
      exposed = (n - 1) / n * std::max(g, ar_) + (g + ar_) / n - g;
    } else if (overlap == "wgrad" && !hides.empty()) {
      const auto w = cm_.times_by_category(model::backward_weight(hides));
      seg.hidden = std::min(ar_, w[0] + w[1] + w[2]);
    }
    seg.collective = add(tp_cost("tp all-reduce", exposed));
    return seg;
  }
  /// The all-gather of activations received with scatter/gather p2p (blocking).
  Segment gather(const std::string& name) {
    Segment seg;
    seg.compute = add(tp_cost(name, gather_));
    return seg;
  }
  /// The chain run alone: blocks whose tp collectives block (except the part hidden behind their wgrad), ended
  /// by network exchanges; a repeated segment becomes one block per run, each waiting for its chunk of the
  /// exchange before it.
  std::vector<Piece> fuse(const std::string& name, const PassChain& chain) {
    std::vector<Piece> pieces;
    ComputeCost c{name, 0, {}, 0};
    bool content = false;
    std::vector<int> waits;  // what the next block waits for
    int chunk_in = -1;       // exchange queued once per chunk of the next repeated segment
    int deferred = -1;       // an overlapped exchange: waited for after the segment that runs beside it
    int params = -1;         // the layer whose parameters the next block starts needing (ZeRO-3)
    auto emit = [&](Piece piece) {
      piece.params_of_layer = params;
      params = -1;
      pieces.push_back(std::move(piece));
    };
    auto add_segment = [&](ComputeCost& to, const Segment& seg) {
      for (int i = 0; i < kTimeCategories; ++i) to.by_category[i] += costs_[seg.compute].by_category[i];
      to.flops += costs_[seg.compute].flops;
      to.dynamic_energy += costs_[seg.compute].dynamic_energy;
      to.host += costs_[seg.compute].host;
      if (seg.collective >= 0)
        to.by_category[static_cast<int>(TimeCategory::TpComm)] += costs_[seg.collective].duration - seg.hidden;
    };
    const auto& segs = chain.segments;
    for (size_t i = 0; i < segs.size(); ++i) {
      const Segment& seg = segs[i];
      if (seg.params_of_layer >= 0) {  // a new block from here, after the gather it waits for
        if (content) {
          emit({add(c), waits, {}});
          c = ComputeCost{name, 0, {}, 0}, content = false, waits.clear();
        }
        params = seg.params_of_layer;
      }
      if (seg.repeat > 1) {
        if (content || !waits.empty()) emit({add(c), waits, {}});
        c = ComputeCost{name, 0, {}, 0}, content = false, waits.clear();
        ComputeCost one{name, 0, {}, 0};
        add_segment(one, seg);
        const int block = add(one);
        for (int r = 0; r < seg.repeat; ++r) {
          emit({block, chunk_in >= 0 ? std::vector<int>{chunk_in} : std::vector<int>{},
                seg.exchange >= 0 ? std::vector<int>{seg.exchange} : std::vector<int>{}});
          pieces.back().host_sync = seg.host_sync;
        }
        pieces.back().gradients_of_layer = seg.gradients_of_layer;
        // Followed by a segment repeated as often: its run r waits only for this exchange's run r.
        const bool chained = seg.exchange >= 0 && i + 1 < segs.size() && segs[i + 1].repeat == seg.repeat;
        if (seg.exchange >= 0 && !chained) waits.assign(seg.repeat, seg.exchange);
        chunk_in = chained ? seg.exchange : -1;
        continue;
      }
      add_segment(c, seg);
      content = true;
      if (deferred >= 0) {  // this segment ran beside the exchange before it; the next block waits for it
        emit({add(c), waits, {}});
        c = ComputeCost{name, 0, {}, 0}, content = false, waits = {deferred}, deferred = -1;
      }
      if (seg.overlapped && seg.exchange >= 0) {
        emit({add(c), waits, {seg.exchange}});
        c = ComputeCost{name, 0, {}, 0}, content = false, waits.clear(), deferred = seg.exchange;
        continue;
      }
      if (seg.exchange < 0 && seg.gradients_of_layer < 0) continue;
      const int times = seg.exchange >= 0 && i + 1 < segs.size() ? segs[i + 1].repeat : 1;
      emit({add(c), waits, std::vector<int>(seg.exchange >= 0 ? times : 0, seg.exchange), seg.gradients_of_layer});
      pieces.back().host_sync = seg.host_sync;
      c = ComputeCost{name, 0, {}, 0}, content = false, waits.clear();
      if (seg.exchange < 0) continue;
      if (times > 1)
        chunk_in = seg.exchange;
      else
        waits = {seg.exchange};
    }
    if (content || !waits.empty() || pieces.empty()) emit({add(c), waits, {}});
    return pieces;
  }

 private:
  ComputeCost tp_cost(const std::string& name, double seconds) const {
    ComputeCost c{name, 0, {}, 0};
    c.by_category[static_cast<int>(TimeCategory::TpComm)] = seconds;
    return c;
  }
  int add(ComputeCost c) {
    c.duration = 0;
    for (double x : c.by_category) c.duration += x;
    costs_.push_back(std::move(c));
    return static_cast<int>(costs_.size()) - 1;
  }

  const scenario::Scenario& s_;
  const hardware::ComputeModel& cm_;
  std::vector<ComputeCost>& costs_;
  double ar_ = 0, gather_ = 0;
};

/// Segments of one layer in each pass.
struct LayerSegments {
  std::vector<Segment> forward, input, weight, backward;
};

Segment with_exchange(Segment seg, int exchange, int repeat = 1) {
  seg.exchange = exchange;
  seg.repeat = repeat;
  return seg;
}

/// Ring attention's core (kernels without collectives): an empty segment that queues exchange `key` to run
/// beside the first `share` of the kernels, then the rest, which waits for it.
std::vector<Segment> ring_core(Builder& b, const std::string& name, const Kernels& kernels, int key, double share) {
  Segment start = with_exchange(b.segment(name + " kv pass", {}, false), key);
  start.overlapped = true;
  return {start, b.segment(name, scaled(kernels, share), false),
          b.segment(name + " last chunk", scaled(kernels, 1 - share), false)};
}

void append(std::vector<Segment>& to, const std::vector<Segment>& from) { to.insert(to.end(), from.begin(), from.end()); }

std::vector<Segment> unit_forward(Builder& b, const std::string& name, const Unit& u) {
  if (u.ring_forward >= 0) return ring_core(b, name, u.forward, u.ring_forward, u.ring_share);
  Segment seg = with_exchange(b.segment(name, u.forward, u.forward_collective, {}, u.beside, u.captured),
                              u.forward_exchange, u.repeat);
  seg.host_sync = u.host_sync;
  return {seg};
}

LayerSegments layer_segments(Builder& b, const std::vector<Unit>& units, const std::string& recompute,
                             const scenario::Training::RecomputeModules& modules) {
  LayerSegments out;
  for (const auto& u : units) append(out.forward, unit_forward(b, "F " + u.name, u));
  if (recompute == "full")  // the layer's forward replayed, collectives and exchanges included, before its backward
    for (const auto& u : units) {
      append(out.input, unit_forward(b, "B recompute " + u.name, u));
      append(out.backward, unit_forward(b, "B recompute " + u.name, u));
    }
  const std::string partial = recompute == "selective" ? "selective" : "none";
  for (auto u = units.rbegin(); u != units.rend(); ++u) {
    auto dgrad_of = [&](const Kernels& f) {
      return concat(model::recomputed(f, partial, modules), model::backward_input(f));
    };
    const Kernels dgrad = dgrad_of(u->forward), wgrad = model::backward_weight(u->forward);
    const Kernels dgrad_beside = dgrad_of(u->beside), wgrad_beside = model::backward_weight(u->beside);
    if (u->ring_backward >= 0) {  // no weights: the same segments in B and B+W
      const auto core = ring_core(b, "B " + u->name, dgrad, u->ring_backward, u->ring_share);
      append(out.input, core), append(out.backward, core);
      continue;
    }
    out.input.push_back(with_exchange(
        b.segment("B " + u->name, dgrad, u->backward_collective, {}, dgrad_beside, u->captured), u->backward_exchange,
        u->repeat));
    if (!wgrad.empty() || !wgrad_beside.empty())
      out.weight.push_back(
          with_exchange(b.segment("W " + u->name, wgrad, false, {}, wgrad_beside, u->captured), -1, u->repeat));
    out.backward.push_back(with_exchange(b.segment("B " + u->name, concat(dgrad, wgrad), u->backward_collective,
                                                   column_parallel(concat(u->forward, u->beside)),
                                                   concat(dgrad_beside, wgrad_beside), u->captured),
                                         u->backward_exchange, u->repeat));
  }
  return out;
}

/// Units of MoE layer `index` on expert-parallel rank `rank`: attention, pre (norm, router, shared experts,
/// permutation) -> dispatch, the rank's experts on their routed tokens -> tp all-reduce -> combine; an empty
/// last unit whose backward starts with the combine-gradient exchange. With attention in the pipeline
/// (FlowMoE, tp 1) attention and pre are one unit run per chunk on 1/R of the micro-batch.
/// The pre unit is a CUDA graph with `router_captured`; a dropless dispatcher (no capacity factor) synchronises
/// the host before the dispatch to read the token counts (Megatron-Core's alltoall and flex dispatchers).
std::vector<Unit> moe_units(const model::LayerShape& x, const scenario::Moe& moe, const std::vector<Unit>& attention,
                            const MoePlan& plan, int index, int rank, const strategy::MoeLayout& layout,
                            bool router_captured) {
  const int chunks = layout.chunks;
  Kernels experts;  // one chunk's work: 1/chunks of every expert's tokens
  for (double n : plan.traffic[index].slot_tokens[rank])
    experts = concat(experts, model::expert_forward(x, moe, n / chunks));
  model::LayerShape part = x;
  part.b /= chunks;
  experts = concat(experts, model::moe_post_forward(part, moe));
  auto key = [&](Exchange e) { return moe_exchange_key(index, e); };
  const Unit expert_unit{"experts", experts, true, true, key(Exchange::Combine), key(Exchange::DispatchGrad), chunks};
  const Unit combine_grad{"combine grad", {}, false, false, -1, key(Exchange::CombineGrad)};
  const bool dropless = moe.capacity_factor == 0;
  if (layout.attention_in_pipeline) {
    Unit gating{"attention+gating", concat(model::attention_forward(part), model::moe_pre_forward(part, moe)), false,
                false, key(Exchange::Dispatch), -1, chunks};
    gating.host_sync = dropless;
    return {gating, expert_unit, combine_grad};
  }
  Unit pre{"moe pre", model::moe_pre_forward(x, moe), false, true, key(Exchange::Dispatch), -1};
  pre.captured = router_captured, pre.host_sync = dropless;
  std::vector<Unit> units = attention;
  for (const Unit& u : {pre, expert_unit, combine_grad}) units.push_back(u);
  return units;
}

/// The four passes of a piece outside the transformer layers (F, B, W and B+W).
struct WholePasses {
  Segment f, b, w, bw;
};

/// What every chunk's passes are assembled from: the layers' segments (the model's first layer, the others,
/// each MoE layer as this expert-parallel rank sees it), the embedding's, the head's and the p2p gathers'.
struct ModelSegments {
  LayerSegments first, other;
  std::vector<LayerSegments> moe_layers;
  Segment embed_f, embed_b, gather_f, gather_b;
  WholePasses head, mtp_input;  ///< the output layer; an MTP module's input (model::mtp_input_forward)
};

/// `forward`'s F, B, W and B+W segments, a tp collective after the F segment when `forward_collective` and after
/// each backward one (its wgrad hiding the input-gradient all-reduce where column_parallel finds a GEMM).
WholePasses whole_passes(Builder& b, const std::string& name, const Kernels& forward, bool forward_collective) {
  const Kernels dgrad = model::backward_input(forward), wgrad = model::backward_weight(forward);
  return {b.segment("F " + name, forward, forward_collective), b.segment("B " + name, dgrad, true),
          b.segment("W " + name, wgrad, false),
          b.segment("B " + name, concat(dgrad, wgrad), true, column_parallel(forward))};
}

ModelSegments model_segments(Builder& b, const scenario::Scenario& s, const MoePlan* moe, int ep_rank,
                             const strategy::MoeLayout& layout) {
  const auto x = model::LayerShape::from(s);
  const std::string& rc = s.training.recompute;
  const Kernels attention = model::attention_forward(x), mlp = model::mlp_forward(x);
  const auto& graph = s.training.cuda_graph;
  std::vector<Unit> attention_block = attention_units(x, attention);
  for (Unit& u : attention_block) u.captured = graph.attn;
  std::vector<Unit> two_units = attention_block;
  two_units.push_back({"mlp", mlp});
  two_units.back().captured = graph.mlp;
  ModelSegments m;
  const auto& modules = s.training.recompute_modules;
  m.first = layer_segments(b, two_units, rc, modules);
  // FAL: after the model's first layer, the MLP reads the first layer's attention output, so it runs on a second
  // stream beside this layer's attention and their partial sums share one all-reduce.
  Unit fal{"layer", attention};
  fal.beside = mlp;
  fal.captured = graph.attn && graph.mlp;
  m.other = s.parallelism.tp_variant == "fal" ? layer_segments(b, {fal}, rc, modules) : m.first;
  const Kernels embedding = model::embedding_forward(x), head = model::head_forward(x);
  m.embed_f = b.segment("F embedding", embedding, true);
  m.embed_b = b.segment("B embedding", model::backward_input(embedding), false);
  m.head = whole_passes(b, "head", head, false);
  if (s.model.mtp_layers > 0) m.mtp_input = whole_passes(b, "mtp input", model::mtp_input_forward(x), true);
  m.gather_f = b.gather("F p2p all-gather");
  m.gather_b = b.gather("B p2p all-gather");
  // MoE layers differ by layer (their routing) and by rank (its experts' tokens).
  if (moe)
    for (size_t i = 0; i < moe->traffic.size(); ++i)
      m.moe_layers.push_back(
          layer_segments(b, moe_units(x, s.model.moe, attention_block, *moe, static_cast<int>(i), ep_rank, layout,
                                      graph.moe_router),
                         rc, modules));
  return m;
}

/// ZeRO-3: marks where each of a chunk's layers (model layers first, first + 1, ...) starts needing its
/// parameters: the first segment of each pass that uses the weights (F, B, B+W), at the indices where the
/// layers' segments begin (`*_at`, in the pass's order); the chunk's first segment (a p2p gather, the embedding
/// or the head) opens the first layer the pass meets.
void mark_layer_params(ChunkPasses& c, int first, const std::vector<size_t>& f_at, const std::vector<size_t>& in_at,
                       const std::vector<size_t>& bw_at) {
  const int layers = static_cast<int>(f_at.size());
  for (int l = 0; l < layers; ++l) {
    c.forward.segments[l == 0 ? 0 : f_at[l]].params_of_layer = first + l;
    const int back = layers - 1 - l;  // the backward meets the layers in reverse
    if (!c.input.segments.empty())
      c.input.segments[l == 0 ? 0 : in_at[l]].params_of_layer = first + back;
    c.backward.segments[l == 0 ? 0 : bw_at[l]].params_of_layer = first + back;
  }
}

}  // namespace

std::vector<ChunkPasses> build_chunk_passes(const scenario::Scenario& s, const hardware::ComputeModel& cm,
                                            const std::vector<int>& layers_of_chunk, std::vector<ComputeCost>& costs,
                                            const MoePlan* moe, int ep_rank, const strategy::MoeLayout& layout) {
  Builder b(s, cm, costs);
  const ModelSegments m = model_segments(b, s, moe, ep_rank, layout);
  const bool gathers = s.training.scatter_gather_p2p && s.parallelism.tp > 1;
  const bool zero3 = s.training.zero_stage == 3, per_layer_grads = layout.gradient_chunk_bytes > 0 || zero3;
  int first_layer = 0;  // model layer index of the chunk's first layer
  auto layer_at = [&](int j, int l) -> const LayerSegments& {
    const int global = first_layer + l;
    if (moe && moe->moe_index[global] >= 0) return m.moe_layers[moe->moe_index[global]];
    return j == 0 && l == 0 ? m.first : m.other;
  };

  const int chunks = static_cast<int>(layers_of_chunk.size());
  std::vector<ChunkPasses> out(chunks);
  for (int j = 0; j < chunks; ++j) {
    ChunkPasses& c = out[j];
    auto& f = c.forward.segments;
    auto& in = c.input.segments;
    auto& w = c.weight.segments;
    auto& bw = c.backward.segments;
    const bool is_first = j == 0, is_last = j == chunks - 1;
    if (!is_first && gathers) f.push_back(m.gather_f);
    if (!is_last && gathers) in.push_back(m.gather_b), bw.push_back(m.gather_b);
    if (is_first) f.push_back(m.embed_f);
    // The output layer's gradients, as "layer" number transformer_layers(), are final after its last backward:
    // the main head's, or with MTP the first MTP module's head (its backward runs last).
    auto head_backward = [&](bool final_use) {
      in.push_back(m.head.b), w.push_back(m.head.w), bw.push_back(m.head.bw);
      if (per_layer_grads && final_use)
        w.back().gradients_of_layer = bw.back().gradients_of_layer = s.model.transformer_layers();
    };
    if (is_last) head_backward(s.model.mtp_layers == 0);
    std::vector<size_t> f_at, in_at, bw_at;  // where each layer's segments begin, in pass order
    // An MTP layer (after the model's last) runs between its input segment and the shared head.
    auto mtp = [&](int l) { return first_layer + l >= s.model.layers; };
    for (int l = 0; l < layers_of_chunk[j]; ++l) {
      if (mtp(l)) f.push_back(m.mtp_input.f);
      f_at.push_back(f.size()), append(f, layer_at(j, l).forward);
      if (mtp(l)) f.push_back(m.head.f);
    }
    for (int l = layers_of_chunk[j] - 1; l >= 0; --l) {
      const LayerSegments& layer = layer_at(j, l);
      if (mtp(l)) head_backward(first_layer + l == s.model.layers);
      in_at.push_back(in.size()), bw_at.push_back(bw.size());
      append(in, layer.input);
      append(w, layer.weight);
      append(bw, layer.backward);
      if (mtp(l)) in.push_back(m.mtp_input.b), w.push_back(m.mtp_input.w), bw.push_back(m.mtp_input.bw);
      if (per_layer_grads) {  // the layer's gradients are final after its last W / B+W segment
        if (!layer.weight.empty()) w.back().gradients_of_layer = first_layer + l;
        bw.back().gradients_of_layer = first_layer + l;
      }
    }
    if (zero3) mark_layer_params(c, first_layer, f_at, in_at, bw_at);
    if (is_last) f.push_back(m.head.f);
    if (is_first) in.push_back(m.embed_b), bw.push_back(m.embed_b);
    c.forward.fused = b.fuse("F", c.forward);
    c.input.fused = b.fuse("B", c.input);
    c.weight.fused = b.fuse("W", c.weight);
    c.backward.fused = b.fuse("B", c.backward);
    first_layer += layers_of_chunk[j];
  }
  return out;
}

}  // namespace llmsim::workload
