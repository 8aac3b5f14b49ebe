#include "llmsim/serving/workload.hpp"

namespace llmsim::serving {

std::vector<Request> make_requests(const scenario::Scenario& s, double rate_scale) {
  const auto source = WorkloadRegistry::instance().make(s.serving.workload, s, "/serving/workload", "workload");
  std::mt19937_64 rng(s.seed * 0x9E3779B97F4A7C15ULL + 0x5E7E);
  return source->requests(rng, {rate_scale, s.serving.duration, s.serving.max_requests});
}

}  // namespace llmsim::serving
