#pragma once
// The one place where every request source applies the WorkloadLimits (serving/workload.hpp). Private to
// src/serving/.
#include <vector>

#include "llmsim/serving/workload.hpp"

namespace llmsim::serving {

class LimitedSource : public WorkloadSource {
 public:
  /// unlimited(), then the limits: arrival / rate_scale, arrivals >= duration dropped (duration > 0), the first
  /// max_requests kept (> 0), ids 0..n-1. No request left is a ScenarioError at /serving/workload.
  std::vector<Request> requests(std::mt19937_64& rng, const WorkloadLimits& limits) const final;

 protected:
  /// The source's requests in arrival order, arrival times not yet divided by rate_scale. A generator may stop
  /// at the first request beyond(limits, ...): the limits drop it and every later one.
  virtual std::vector<Request> unlimited(std::mt19937_64& rng, const WorkloadLimits& limits) const = 0;
  /// Whether the request that is the `count`-th (from 0) with unscaled arrival `arrival` is dropped by `limits`.
  static bool beyond(const WorkloadLimits& limits, double arrival, size_t count);
};

/// Replays requests read once (a trace), in arrival order.
class Replay final : public LimitedSource {
 public:
  explicit Replay(std::vector<Request> trace) : trace_(std::move(trace)) {}

 protected:
  std::vector<Request> unlimited(std::mt19937_64&, const WorkloadLimits&) const override { return trace_; }

 private:
  std::vector<Request> trace_;
};

}  // namespace llmsim::serving
