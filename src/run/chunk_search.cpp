#include "llmsim/run/chunk_search.hpp"

#include <spdlog/spdlog.h>

#include <cmath>
#include <map>

#include "llmsim/run/child_process.hpp"
#include "llmsim/strategy/moe_pipeline.hpp"

namespace llmsim::run {

scenario::Scenario with_gradient_chunk(const scenario::Scenario& s, double bytes) {
  scenario::Scenario c = s;
  c.strategies.moe_pipeline.params.set_number("allreduce_chunk_bytes", bytes);
  c.resolved["strategies"]["moe_pipeline"]["allreduce_chunk_bytes"] = bytes;
  return c;
}

ChunkSearch search_gradient_chunk(const scenario::Scenario& s,
                                  const std::function<double(const scenario::Scenario&)>& iteration_time) {
  ChunkSearch out;
  std::map<double, double> seen;  // S_p -> iteration time
  auto cost = [&](double log2_bytes) {
    const double bytes = std::round(std::exp2(log2_bytes) / 1024) * 1024;
    auto it = seen.find(bytes);
    if (it != seen.end()) return it->second;
    const scenario::Scenario candidate = with_gradient_chunk(s, bytes);
    const double t = in_child([&] { return iteration_time(candidate); },
                              "S_p search, candidate " + std::to_string(static_cast<long long>(bytes)) +
                                  " bytes (run it with that allreduce_chunk_bytes to see why)");
    spdlog::info("{}: S_p {:.0f} KiB -> iteration {:.4f} s", s.name, bytes / 1024, t);
    out.evaluations.push_back({bytes, t});
    return seen[bytes] = t;
  };
  const double phi = (std::sqrt(5.0) - 1) / 2;
  double a = std::log2(strategy::kMinGradientChunkBytes), b = std::log2(strategy::kMaxGradientChunkBytes);
  double x1 = b - phi * (b - a), x2 = a + phi * (b - a);
  double f1 = cost(x1), f2 = cost(x2);
  while (b - a > 0.25) {
    if (f1 <= f2) {
      b = x2, x2 = x1, f2 = f1;
      x1 = b - phi * (b - a), f1 = cost(x1);
    } else {
      a = x1, x1 = x2, f1 = f2;
      x2 = a + phi * (b - a), f2 = cost(x2);
    }
  }
  out.best_bytes = out.evaluations.front().first;
  double best = out.evaluations.front().second;
  for (const auto& [bytes, t] : out.evaluations)
    if (t < best) best = t, out.best_bytes = bytes;
  return out;
}

nlohmann::json ChunkSearch::to_json() const {
  nlohmann::json tried = nlohmann::json::array();
  for (const auto& [bytes, t] : evaluations) tried.push_back({{"allreduce_chunk_bytes", bytes}, {"iteration_time_s", t}});
  return {{"method", "golden-section over log2(S_p)"},
          {"range_bytes", {strategy::kMinGradientChunkBytes, strategy::kMaxGradientChunkBytes}},
          {"allreduce_chunk_bytes", best_bytes},
          {"evaluations", tried}};
}

}  // namespace llmsim::run
