#include "llmsim/workload/context_parallel.hpp"

#include "llmsim/model/transformer.hpp"

namespace llmsim::workload {
namespace {

using collectives::Algorithm;
using collectives::Kind;

struct ExchangeKind {
  const char* name;
  Kind kind;
  Algorithm algorithm;
  double bytes;  ///< per GPU buffer (nccl-tests size)
};

/// The exchanges of the scenario's variant, indexed by CpExchange (bytes 0: unused).
std::vector<ExchangeKind> exchange_kinds(const scenario::Scenario& s) {
  const auto x = model::LayerShape::from(s);
  const double e = x.bytes_per_element(), tokens = x.b * x.s;
  const double heads = x.a / x.t, kv = x.kv_heads_per_rank();
  std::vector<ExchangeKind> out(static_cast<int>(CpExchange::Count), {"", Kind::AllGather, Algorithm::Ring, 0});
  auto set = [&](CpExchange c, ExchangeKind k) { out[static_cast<int>(c)] = k; };
  if (!x.ulysses) {
    const double kv_chunk = tokens * kv * (x.d + x.value_dim()) * e;  // K and V of this rank's chunk
    set(CpExchange::RingForward, {"cp ring kv", Kind::AllGather, Algorithm::Ring, x.cp * kv_chunk});
    set(CpExchange::RingBackward, {"cp ring kv+dkv", Kind::AllGather, Algorithm::Ring, 2 * x.cp * kv_chunk});
    return out;
  }
  const double qkv = tokens * (heads * x.d + kv * (x.d + x.value_dim())) * e, o = tokens * heads * x.value_dim() * e;
  set(CpExchange::UlyssesIn, {"cp ulysses qkv", Kind::AllToAll, Algorithm::Direct, qkv});
  set(CpExchange::UlyssesOut, {"cp ulysses out", Kind::AllToAll, Algorithm::Direct, o});
  set(CpExchange::UlyssesOutGrad, {"cp ulysses out grad", Kind::AllToAll, Algorithm::Direct, o});
  set(CpExchange::UlyssesInGrad, {"cp ulysses qkv grad", Kind::AllToAll, Algorithm::Direct, qkv});
  return out;
}

}  // namespace

CpExchanges add_cp_exchanges(const scenario::Scenario& s, int pp, const std::function<int(int, int)>& worker_of,
                             Workload& w) {
  CpExchanges out;
  const int cp = s.parallelism.cp, dp = out.dp = s.parallelism.dp;
  if (cp == 1) return out;
  const auto kinds = exchange_kinds(s);
  out.spec.assign(pp, std::vector<std::vector<std::vector<int>>>(dp, std::vector<std::vector<int>>(kinds.size())));
  for (int stage = 0; stage < pp; ++stage)
    for (int d = 0; d < dp; ++d) {
      if (worker_of(stage, d) < 0) continue;  // folded away
      const int group = static_cast<int>(w.groups.size());
      w.groups.emplace_back();
      for (int c = 0; c < cp; ++c) w.groups.back().push_back(worker_of(stage, c * dp + d));
      for (size_t k = 0; k < kinds.size(); ++k) {
        if (kinds[k].bytes == 0) continue;
        out.spec[stage][d][k] = {static_cast<int>(w.collectives.size())};
        w.collectives.push_back({kinds[k].name, group, kinds[k].kind, kinds[k].bytes, TimeCategory::CpComm,
                                 kinds[k].algorithm, {}});
        // Transformer Engine passes K and V to the next cp rank with send/recv: one flow per hop, not NCCL's
        // channels (a cross-node hop has one NIC).
        w.collectives.back().point_to_point = kinds[k].algorithm == Algorithm::Ring;
      }
    }
  return out;
}

}  // namespace llmsim::workload
