#pragma once
// Which requests a serving run serves, and with how many tokens, decided per request before the run as vLLM
// decides at arrival (a rejected request is not served; the run goes on with the others):
//   context   model.max_seq_len L bounds prompt + output tokens. A prompt of L tokens or more leaves no room for
//             the first output token: serving.context_overflow "reject" rejects the request (vLLM's OpenAI
//             server), "truncate" keeps the last L - 1 prompt tokens (vLLM's truncate_prompt_tokens = L - 1).
//             Generation stops at the context: output = min(requested output, L - prompt) (vLLM's length cap).
//   KV cache  a request whose prompt + output tokens (after the context) need more KV blocks than a replica has
//             above the watermark could never be admitted and is rejected.
#include <string>
#include <vector>

#include "llmsim/scenario/scenario.hpp"
#include "llmsim/serving/kv_cache.hpp"
#include "llmsim/serving/request.hpp"

namespace llmsim::serving {

enum class Status { Served, Truncated, RejectedContext, RejectedKvCache };

/// "served", "truncated", "rejected-context", "rejected-kv-cache" (requests.csv).
const char* status_name(Status s);
inline bool is_served(Status s) { return s == Status::Served || s == Status::Truncated; }

struct Admission {
  Status status = Status::Served;
  int prompt_tokens = 0;  ///< served: after truncation; rejected: the request's
  int output_tokens = 0;  ///< served: within the context; rejected: the request's
  bool served() const { return is_served(status); }
};

/// The admissions of `requests` (by index) on replicas of KV geometry `kv` (replica_kv, scheduler.hpp). Throws
/// ScenarioError when none is served (the configuration serves nothing of this workload): at /serving/kv_cache
/// when some were rejected for the KV cache, else at /serving/context_overflow.
std::vector<Admission> admit(const scenario::Scenario& s, const std::vector<Request>& requests, const KvGeometry& kv);

}  // namespace llmsim::serving
