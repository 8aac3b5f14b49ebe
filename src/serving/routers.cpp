// The routers of serving/router.hpp.
#include <algorithm>

#include "llmsim/serving/router.hpp"
#include "llmsim/strategy/family.hpp"

namespace llmsim::serving {
namespace {

/// The replica with the smallest key (ties: lowest index).
template <class Key>
int argmin(const std::vector<ReplicaLoad>& rs, Key key) {
  int best = 0;
  for (int i = 1; i < static_cast<int>(rs.size()); ++i)
    if (key(rs[i]) < key(rs[best])) best = i;
  return best;
}

class RoundRobin final : public Router {
 public:
  int route(const Request&, const std::vector<ReplicaLoad>& rs) override { return next_++ % rs.size(); }

 private:
  size_t next_ = 0;
};

class LeastOutstanding final : public Router {
 public:
  int route(const Request&, const std::vector<ReplicaLoad>& rs) override {
    return argmin(rs, [](const ReplicaLoad& r) { return r.outstanding; });
  }
};

class ShortestQueue final : public Router {
 public:
  int route(const Request&, const std::vector<ReplicaLoad>& rs) override {
    return argmin(rs, [](const ReplicaLoad& r) { return r.waiting; });
  }
};

class KvAware final : public Router {
 public:
  int route(const Request&, const std::vector<ReplicaLoad>& rs) override {
    return argmin(rs, [](const ReplicaLoad& r) { return r.waiting_blocks - r.free_blocks; });
  }
  bool reads_waiting_blocks() const override { return true; }
};

template <class R>
strategy::Registry<Router>::Factory plain() {
  return [](const scenario::Params&, const scenario::Scenario&) { return std::make_unique<R>(); };
}

LLMSIM_REGISTER(Router, "round-robin", "replicas in turn", {}, plain<RoundRobin>());
LLMSIM_REGISTER(Router, "least-outstanding", "fewest requests assigned and not finished", {}, plain<LeastOutstanding>());
LLMSIM_REGISTER(Router, "jsq", "join-the-shortest-queue: fewest requests waiting for admission", {},
                plain<ShortestQueue>());
LLMSIM_REGISTER(Router, "kv-aware", "most free KV blocks after its waiting prompts are served (Llumnix freeness)", {},
                plain<KvAware>());

}  // namespace

std::unique_ptr<Router> make_router(const scenario::Scenario& s) {
  return RouterRegistry::instance().make(s.serving.router, s, "/serving/router", "router");
}

LLMSIM_FAMILY(Router, "serving", "router", "round-robin", "which replica a request goes to", 100,
              {"serving", "serving.router", 3}, [](const scenario::Scenario& s) { make_router(s); });

}  // namespace llmsim::serving
