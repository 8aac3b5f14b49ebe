#include "llmsim/serving/workload.hpp"
#include "llmsim/strategy/family.hpp"

#include <sstream>

#include "limited_source.hpp"

namespace llmsim::serving {

bool LimitedSource::beyond(const WorkloadLimits& limits, double arrival, size_t count) {
  return (limits.duration > 0 && arrival / limits.rate_scale >= limits.duration) ||
         (limits.max_requests > 0 && count >= static_cast<size_t>(limits.max_requests));
}

std::vector<Request> LimitedSource::requests(std::mt19937_64& rng, const WorkloadLimits& limits) const {
  std::vector<Request> all = unlimited(rng, limits), out;
  for (auto& r : all) {
    if (beyond(limits, r.arrival, out.size())) break;  // arrivals are in order: every later one is beyond too
    r.arrival /= limits.rate_scale;
    r.id = static_cast<int>(out.size());
    out.push_back(std::move(r));
  }
  if (all.empty())
    throw ScenarioError("/serving/workload", "no request in the workload (a trace: check its rows and start_s; a "
                                             "generated workload: raise serving.duration_s or its rate)");
  if (out.empty()) {
    std::ostringstream why;
    why << "no request arrives before serving.duration_s = " << limits.duration << " s (the first of "
        << all.size() << " arrives at " << all.front().arrival / limits.rate_scale << " s with rate_scale "
        << limits.rate_scale << ")";
    throw ScenarioError("/serving/workload", why.str());
  }
  return out;
}

std::vector<Request> make_requests(const scenario::Scenario& s, double rate_scale) {
  const auto source = WorkloadRegistry::instance().make(s.serving.workload, s, "/serving/workload", "workload");
  std::mt19937_64 rng(s.seed * 0x9E3779B97F4A7C15ULL + 0x5E7E);
  return source->requests(rng, {rate_scale, s.serving.duration, s.serving.max_requests});
}

// A trace is read and checked.
LLMSIM_FAMILY(WorkloadSource, "serving", "workload", "poisson", "request source", 80,
              {"serving", "serving.workload", 1},
              [](const scenario::Scenario& s) { make_requests(s, s.serving.rate_scale); });

}  // namespace llmsim::serving
