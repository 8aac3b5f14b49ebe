#include "llmsim/serving/simulation.hpp"

#include <simgrid/s4u.hpp>

#include <memory>

#include "llmsim/engine/simulation.hpp"
#include "llmsim/platform/cluster_platform.hpp"
#include "llmsim/util/error.hpp"
#include "llmsim/util/progress.hpp"

namespace sg4 = simgrid::s4u;

namespace llmsim::serving {
namespace {

/// The run's shared state; actors are cooperative, so no locking beyond what condition variables need.
class Run {
 public:
  /// `served`: the admitted requests with their served lengths; `records`: one per request of the workload, by id.
  Run(const scenario::Scenario& s, const std::vector<Request>& served, std::vector<RequestRecord> records,
      const StepModel& model, const KvGeometry& kv)
      : s_(s), requests_(served), router_(make_router(s)), kv_(kv), seqs_(served.size()), records_(std::move(records)) {
    const int n = s.parallelism.dp, prefill = s.serving.prefill_replicas;
    for (int r = 0; r < n; ++r) {
      const Role role = prefill == 0 ? Role::Both : (r < prefill ? Role::Prefill : Role::Decode);
      replicas_.push_back(std::make_unique<Replica>(r, role, model, make_scheduler(s), kv_, s.serving.kv_cache,
                                                    s.hardware.host_link_bandwidth));
      wake_.push_back(sg4::ConditionVariable::create());
    }
    mutex_ = sg4::Mutex::create();
    for (size_t i = 0; i < served.size(); ++i) {
      seqs_[i].request = &served[i];
      seqs_[i].prefill_target = served[i].prompt_tokens;
    }
  }

  void build_hosts(const platform::ClusterPlatform& p) {
    const int tp = s_.parallelism.tp, pp = s_.parallelism.pp, w = p.lane_width;
    lanes_ = tp / w;
    lane_width_ = w;
    hosts_.resize(replicas_.size());
    for (size_t r = 0; r < replicas_.size(); ++r)
      for (int stage = 0; stage < pp; ++stage)
        for (int lane = 0; lane < lanes_; ++lane) {
          const long g = (static_cast<long>(r) * pp + stage) * tp + lane * w;
          hosts_[r].push_back(p.host(static_cast<int>(g / p.gpus_per_node), static_cast<int>(g % p.gpus_per_node)));
        }
  }

  // Shared state changes under mutex_ only: taking a mutex is a simcall, at which SimGrid may run another actor
  // of the same instant, so a replica must check its queues and start waiting without letting go of it.
  void frontend() {
    for (size_t i = 0; i < seqs_.size(); ++i) {
      sg4::this_actor::sleep_until(requests_[i].arrival);
      std::unique_lock<sg4::Mutex> lock(*mutex_);
      const int r = route(requests_[i], Role::Decode);  // prefill replicas, or all when co-located
      records_[requests_[i].id].prefill_replica = r;
      replicas_[r]->enqueue(&seqs_[i]);
      wake_[r]->notify_all();
    }
  }

  void serve(int r) {
    Replica& rep = *replicas_[r];
    std::vector<Sequence*> finished, handoff;
    std::unique_lock<sg4::Mutex> lock(*mutex_);
    while (finished_ < seqs_.size()) {
      const Batch b = rep.next();
      if (b.empty()) {
        wake_[r]->wait(lock);
        continue;
      }
      const double start = sg4::Engine::get_clock();
      lock.unlock();
      sg4::this_actor::sleep_for(rep.start(b));
      lock.lock();
      finished.clear();
      handoff.clear();
      rep.apply(b, start, sg4::Engine::get_clock(), finished, handoff);
      for (Sequence* s : b.preempted) records_[s->request->id].preemptions = s->preemptions;
      for (Sequence* s : finished) finish(s, r);
      for (Sequence* s : handoff) send(s, r);
    }
  }

  ServingResult result() {
    ServingResult out;
    out.kv = kv_;
    for (const auto& r : replicas_) {
      out.steps.push_back(r->steps());
      out.roles.push_back(r->role());
      out.dynamic_energy.push_back(r->dynamic_energy());
    }
    for (const auto& rec : records_) out.end = std::max(out.end, rec.finished);
    out.requests = std::move(records_);
    return out;
  }

  size_t unfinished() const { return seqs_.size() - finished_; }
  size_t replicas() const { return replicas_.size(); }
  sg4::Host* host(int r) const { return hosts_[r][0]; }

 private:
  /// The replica for `req` among those whose role is not `excluded`.
  int route(const Request& req, Role excluded) {
    std::vector<int> candidates;
    std::vector<ReplicaLoad> loads;
    for (const auto& rep : replicas_)
      if (rep->role() != excluded) {
        candidates.push_back(rep->index());
        loads.push_back(rep->load(router_->reads_waiting_blocks()));
      }
    return candidates[router_->route(req, loads)];
  }

  void finish(Sequence* s, int r) {
    auto& rec = records_[s->request->id];
    rec.first_token = s->first_token;
    rec.finished = s->finished;
    rec.replica = r;
    rec.preemptions = s->preemptions;
    util::progress_counter().fetch_add(1, std::memory_order_relaxed);
    if (++finished_ == seqs_.size())
      for (auto& w : wake_) w->notify_all();
  }

  /// Sends the KV cache of a prefilled `s` from prefill replica `from` to the decode replica the router picks.
  void send(Sequence* s, int from) {
    const int to = route(*s->request, Role::Prefill);
    const double bytes = s->computed * kv_.bytes_per_token * lane_width_;  // per host: its lanes' heads
    const int pp = s_.parallelism.pp;
    std::vector<std::pair<sg4::Host*, sg4::Host*>> pairs;
    for (int i = 0; i < pp * lanes_; ++i) pairs.push_back({hosts_[from][i], hosts_[to][i]});
    sg4::Actor::create("kv-" + std::to_string(s->request->id), hosts_[from][0], [this, s, from, to, bytes, pairs]() {
      const double start = sg4::Engine::get_clock();
      std::vector<sg4::CommPtr> flows;
      for (const auto& [a, b] : pairs) flows.push_back(sg4::Comm::sendto_async(a, b, bytes));
      for (auto& f : flows) f->wait();
      std::unique_lock<sg4::Mutex> lock(*mutex_);
      records_[s->request->id].kv_transfer = sg4::Engine::get_clock() - start;
      replicas_[from]->release_sent(s);
      replicas_[to]->enqueue(s);
      wake_[from]->notify_all();
      wake_[to]->notify_all();
    });
  }

  const scenario::Scenario& s_;
  const std::vector<Request>& requests_;
  std::unique_ptr<Router> router_;
  KvGeometry kv_;
  std::vector<std::unique_ptr<Replica>> replicas_;
  std::vector<sg4::ConditionVariablePtr> wake_;
  sg4::MutexPtr mutex_;
  std::vector<Sequence> seqs_;
  std::vector<RequestRecord> records_;
  std::vector<std::vector<sg4::Host*>> hosts_;  ///< per replica: per stage, per lane group
  int lanes_ = 1, lane_width_ = 1;
  size_t finished_ = 0;
};

/// The admitted requests with their served lengths; `records` gets one per request (its admission, no times).
std::vector<Request> admitted(const std::vector<Request>& requests, const std::vector<Admission>& admissions,
                              std::vector<RequestRecord>& records) {
  std::vector<Request> served;
  for (size_t i = 0; i < requests.size(); ++i) {
    const Request& r = requests[i];
    const Admission& a = admissions[i];
    records.push_back({r.id, r.arrival, -1, -1, a.status, a.prompt_tokens, a.output_tokens, r.prompt_tokens,
                       r.output_tokens});
    if (!a.served()) continue;
    served.push_back(r);
    served.back().prompt_tokens = a.prompt_tokens;
    served.back().output_tokens = a.output_tokens;
    if (a.status == Status::Truncated) served.back().block_hashes.clear();  // the kept tail has no shared prefix
  }
  return served;
}

}  // namespace

ServingResult simulate_serving(const scenario::Scenario& s, const std::vector<Request>& requests) {
  const StepModel model(s);
  const KvGeometry kv = replica_kv(s);
  std::vector<RequestRecord> records;
  const auto served = admitted(requests, admit(s, requests, kv), records);
  util::progress_counter().fetch_add(static_cast<long long>(requests.size() - served.size()),
                                     std::memory_order_relaxed);  // a rejected request is done
  Run run(s, served, std::move(records), model, kv);
  const auto engine = engine::make_engine(s.network.model);
  const auto platform = platform::build_platform(s, s.parallelism.tp);
  run.build_hosts(platform);
  sg4::Actor::create("frontend", run.host(0), [&run]() { run.frontend(); });
  for (size_t r = 0; r < run.replicas(); ++r)
    sg4::Actor::create("replica-" + std::to_string(r), run.host(static_cast<int>(r)), [&run, r]() {
      run.serve(static_cast<int>(r));
    });
  engine->run();
  if (run.unfinished() > 0)
    throw SimulationError(std::to_string(run.unfinished()) + " requests never finished (a scheduler deadlock)");
  return run.result();
}

}  // namespace llmsim::serving
