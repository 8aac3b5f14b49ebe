#pragma once
// Routers across replicas (`serving.router`, one registry family): which replica a new request goes to (with
// disaggregation: which prefill replica, and at the end of its prefill which decode replica).
//   round-robin         replicas in turn
//   least-outstanding   fewest requests assigned and not finished (what a load balancer counts itself)
//   jsq                 join-the-shortest-queue: fewest requests waiting to be admitted into a batch
//   kv-aware            most free KV blocks after the prompts of its waiting requests are served
//                       (Llumnix-style "freeness", Sun et al., OSDI 2024)
// Ties go to the lowest replica index.
#include <memory>
#include <vector>

#include "llmsim/serving/request.hpp"
#include "llmsim/strategy/registry.hpp"

namespace llmsim::serving {

/// A replica as the router sees it at the routing instant.
struct ReplicaLoad {
  int outstanding = 0;       ///< assigned and not finished
  int waiting = 0;           ///< not yet admitted
  long free_blocks = 0;      ///< KV blocks free now
  long waiting_blocks = 0;   ///< blocks the waiting requests' prompts will need
};

class Router {
 public:
  virtual ~Router() = default;
  /// Index into `replicas` (non-empty) for `r`.
  virtual int route(const Request& r, const std::vector<ReplicaLoad>& replicas) = 0;
  /// Whether it reads ReplicaLoad::waiting_blocks (a scan of the waiting queues, skipped otherwise).
  virtual bool reads_waiting_blocks() const { return false; }
};

using RouterRegistry = strategy::Registry<Router>;

std::unique_ptr<Router> make_router(const scenario::Scenario& s);

}  // namespace llmsim::serving
