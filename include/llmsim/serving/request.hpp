#pragma once
// One inference request of a serving workload (serving/workload.hpp).
#include <cstdint>
#include <vector>

namespace llmsim::serving {

struct Request {
  int id = 0;              ///< 0 .. n-1 in arrival order
  double arrival = 0;      ///< [s] from the start of the run
  int prompt_tokens = 0;   ///< >= 1
  int output_tokens = 0;   ///< >= 1, including the first token (produced by the prefill)
  /// Mooncake-style prefix block hashes (one per `block_tokens` of the prompt), empty for other sources.
  std::vector<std::uint64_t> block_hashes;
};

}  // namespace llmsim::serving
