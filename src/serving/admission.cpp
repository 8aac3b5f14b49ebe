#include "llmsim/serving/admission.hpp"

#include <algorithm>
#include <cmath>

#include "llmsim/util/error.hpp"

namespace llmsim::serving {

const char* status_name(Status s) {
  switch (s) {
    case Status::Served: return "served";
    case Status::Truncated: return "truncated";
    case Status::RejectedContext: return "rejected-context";
    case Status::RejectedKvCache: return "rejected-kv-cache";
  }
  return "?";
}

namespace {

/// The admission of `r` within a context of `context` tokens on replicas of `usable` KV blocks of `pool`.
Admission admit_one(const Request& r, int context, bool truncate, const KvBlocks& pool, long usable) {
  Admission a{Status::Served, r.prompt_tokens, r.output_tokens};
  if (r.prompt_tokens >= context) {
    if (!truncate || context < 2) return {Status::RejectedContext, r.prompt_tokens, r.output_tokens};
    a = {Status::Truncated, context - 1, r.output_tokens};  // the last context - 1 tokens
  }
  a.output_tokens = std::min(a.output_tokens, context - a.prompt_tokens);
  if (pool.blocks_for(static_cast<long>(a.prompt_tokens) + a.output_tokens) > usable)
    return {Status::RejectedKvCache, r.prompt_tokens, r.output_tokens};
  return a;
}

[[noreturn]] void nothing_served(const scenario::Scenario& s, size_t n, long over_context, long usable,
                                 const KvGeometry& kv) {
  const std::string of = " of " + std::to_string(n) + " requests";
  const std::string context = "a prompt of model.max_seq_len " + std::to_string(s.model.max_seq_len) +
                              " tokens or more (serving.context_overflow " + s.serving.context_overflow + ")";
  if (over_context == static_cast<long>(n))
    throw ScenarioError("/serving/context_overflow",
                        "no request is served: all" + of + " have " + context +
                            (s.serving.context_overflow == "truncate" ? " (raise model.max_seq_len above 1)"
                                                                      : " (use \"truncate\" or raise model.max_seq_len)"));
  throw ScenarioError("/serving/kv_cache",
                      "no request is served: " + std::to_string(n - over_context) + of +
                          " need more KV blocks than the " + std::to_string(usable) + " of " +
                          std::to_string(kv.block_size) + " tokens a replica has above the watermark" +
                          (over_context > 0 ? ", the other " + std::to_string(over_context) + " have " + context : "") +
                          " (raise tp or pp, memory_utilization or blocks)");
}

}  // namespace

std::vector<Admission> admit(const scenario::Scenario& s, const std::vector<Request>& requests, const KvGeometry& kv) {
  const KvBlocks pool(kv.blocks, kv.block_size);
  const long usable = kv.blocks - static_cast<long>(std::ceil(s.serving.kv_cache.watermark * kv.blocks));
  const bool truncate = s.serving.context_overflow == "truncate";
  std::vector<Admission> out;
  long served = 0, over_context = 0;
  for (const auto& r : requests) {
    out.push_back(admit_one(r, s.model.max_seq_len, truncate, pool, usable));
    served += out.back().served();
    over_context += out.back().status == Status::RejectedContext;
  }
  if (served == 0 && !requests.empty()) nothing_served(s, requests.size(), over_context, usable, kv);
  return out;
}

}  // namespace llmsim::serving
