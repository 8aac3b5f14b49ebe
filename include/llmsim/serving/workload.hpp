#pragma once
// Request sources of a serving run (`serving.workload`, one registry family). A source produces the requests of
// the run: arrival times and prompt/output lengths.
//   offline       `requests` requests of `input_tokens` and `output_tokens`, all arriving at time 0 (offline
//                 throughput benchmarks: trtllm-bench throughput, vLLM benchmark_throughput)
//   poisson       arrivals at `rate_rps` with exponential gaps; prompt and output lengths from `prompt` and
//                 `output` (length distributions, see LengthDistribution)
//   gamma         the same with Gamma-distributed gaps of coefficient of variation `cv` (cv 1 = Poisson;
//                 > 1 bursty), mean gap 1 / rate_rps
//   azure-trace   replay of the Azure LLM inference traces 2023 (Patel et al., "Splitwise", ISCA 2024; data from
//                 Azure/AzurePublicDataset, CC-BY-4.0; shipped in data/azure-llm-2023/): `trace` "code",
//                 "conversation" or a CSV path with the same columns TIMESTAMP,ContextTokens,GeneratedTokens;
//                 arrivals relative to the first request; `start_s` replays from that offset of the trace
//   mooncake      a Mooncake-style JSONL trace (Qin et al., "Mooncake", FAST 2025; kvcache-ai/Mooncake
//                 FAST25-release/traces): one object per line with timestamp [ms], input_length, output_length
//                 and hash_ids (prefix blocks of `block_tokens` tokens: exactly ceil(input_length / block_tokens)
//                 of them); arrivals relative to the first line
// Every source applies the same limits (serving.rate_scale, max_requests, duration_s): arrival times are divided
// by rate_scale (rate_scale 2 = twice the request rate), then requests arriving at or after duration_s (when > 0)
// are dropped, then only the first max_requests (when > 0) are kept.
// Errors: a trace line that cannot be read is a ScenarioError naming "<file>:<line>" and what is wrong; nothing is
// skipped silently (a request with 0 prompt tokens is an error; 0 generated tokens is read as 1: the first token).
#include <memory>
#include <random>
#include <vector>

#include "llmsim/serving/request.hpp"
#include "llmsim/strategy/registry.hpp"

namespace llmsim::serving {

struct WorkloadLimits {
  double rate_scale = 1;  ///< arrival rate multiplier (> 0)
  double duration = 0;    ///< [s] arrivals from this time on are dropped; 0 = no limit
  long max_requests = 0;  ///< 0 = no limit
};

class WorkloadSource {
 public:
  virtual ~WorkloadSource() = default;
  /// The requests of the run in arrival order, ids 0..n-1, after `limits`. Random draws come from `rng` only.
  virtual std::vector<Request> requests(std::mt19937_64& rng, const WorkloadLimits& limits) const = 0;
};

using WorkloadRegistry = strategy::Registry<WorkloadSource>;

/// The requests of scenario `s` (serving.workload with its limits), drawn with a generator seeded from s.seed;
/// `rate_scale` replaces serving.rate_scale (the capacity search varies it).
std::vector<Request> make_requests(const scenario::Scenario& s, double rate_scale);

}  // namespace llmsim::serving
