#include "llmsim/engine/engine.hpp"

#include <simgrid/s4u.hpp>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <unordered_map>

#include "llmsim/collectives/auto_select.hpp"
#include "llmsim/engine/plan_runner.hpp"
#include "llmsim/engine/simulation.hpp"
#include "llmsim/util/error.hpp"
#include "llmsim/util/progress.hpp"

namespace sg4 = simgrid::s4u;

namespace llmsim::engine {

using workload::Op;
using workload::TimeCategory;

namespace {

/// Message tag of a pipeline transfer: (pass, micro-batch, chunk), non-zero so it can travel as a payload.
/// A pipeline message: activations (forward) or their gradient (a whole or B-only backward sends the same
/// gradient, so schedules that mix them still match) of a micro-batch for a chunk.
uintptr_t tag_of(workload::Pass pass, int micro_batch, int chunk) {
  const uintptr_t gradient = pass == workload::Pass::Forward ? 0 : 1;
  return ((static_cast<uintptr_t>(micro_batch) << 20 | static_cast<uintptr_t>(chunk)) << 1 | gradient) + 1;
}

struct CollectiveInstance {
  int arrived = 0;
  bool done = false;
  sg4::MutexPtr mutex = sg4::Mutex::create();
  sg4::ConditionVariablePtr cv = sg4::ConditionVariable::create();
};

class Runtime {
 public:
  Runtime(const workload::Workload& w, const platform::ClusterPlatform& p, report::Recorder& rec)
      : w_(w), p_(p), rec_(rec), streams_(w.groups.size()) {
    std::vector<int> uses(w.collectives.size(), 0);  // most starts of each collective by one worker
    for (const auto& wk : w.workers) {
      std::vector<int> mine(w.collectives.size(), 0);
      for (const auto& op : wk.ops)
        if (op.kind == Op::Kind::CollStart) uses[op.ref] = std::max(uses[op.ref], ++mine[op.ref]);
    }
    instances_.resize(w.collectives.size());
    for (size_t c = 0; c < w.collectives.size(); ++c)
      for (int i = 0; i < uses[c]; ++i) instances_[c].push_back(std::make_shared<CollectiveInstance>());
    for (size_t i = 0; i < w.workers.size(); ++i) {
      collective_starts_.emplace_back();
      collective_waits_.emplace_back();
    }
    pending_all_to_all_.assign(w.workers.size(), 0);
  }

  /// Host of lane `lane` of a worker: the platform carries lane_width GPUs per host, so a worker of width w
  /// spans w / lane_width hosts (1 with lane aggregation).
  sg4::Host* host(int worker, int lane = 0) const {
    const auto& wk = w_.workers[worker];
    return p_.host(wk.node, wk.first_local + lane * p_.lane_width);
  }
  int lanes(int worker) const { return std::max(1, w_.workers[worker].width / p_.lane_width); }
  sg4::Mailbox* mailbox(int src, int dst) const {
    return sg4::Mailbox::by_name("p2p-" + std::to_string(src) + "-" + std::to_string(dst));
  }

  void run_worker(int id);
  void set_switch_reduction(bool on) { switch_reduction_ = on; }
  void set_flow_level(bool on) { flow_level_ = on; }
  void set_message_overhead(double seconds) { message_overhead_ = seconds; }
  bool finished(int id) const { return finished_.count(id) > 0; }

 private:
  void send(int id, const Op& op);
  void recv(int id, const Op& op, std::set<uintptr_t>& early);
  std::shared_ptr<CollectiveInstance> instance(int spec, int index) const {
    return instances_[spec][index];
  }
  void start_collective(int id, int spec);
  void wait_collective(int id, int spec);
  void drive_collective(int spec, const std::shared_ptr<CollectiveInstance>& inst);
  void drain_stream(int group);

  const workload::Workload& w_;
  const platform::ClusterPlatform& p_;
  report::Recorder& rec_;
  /// One per start of each collective, created before the simulation starts: creating SimGrid
  /// synchronisation objects inside an actor yields to other actors.
  std::vector<std::vector<std::shared_ptr<CollectiveInstance>>> instances_;  // [collective][start index]
  /// One NCCL-like stream per group: collectives whose members have all arrived, run in arrival order by a
  /// single actor that lives while the queue is not empty (one actor per group, not one per collective).
  struct GroupStream {
    std::deque<std::pair<int, std::shared_ptr<CollectiveInstance>>> ready;
    bool active = false;
  };
  std::vector<GroupStream> streams_;
  std::vector<std::unordered_map<int, int>> collective_starts_, collective_waits_;
  /// Per worker: all-to-alls (EpComm) it has started that have not finished; low-priority collectives
  /// (CollectiveSpec::yields_to_all_to_all) wait on all_to_all_idle_ until their members have none.
  std::vector<int> pending_all_to_all_;
  sg4::MutexPtr all_to_all_mutex_ = sg4::Mutex::create();
  sg4::ConditionVariablePtr all_to_all_idle_ = sg4::ConditionVariable::create();
  std::map<std::tuple<int, int, uintptr_t>, double> send_posted_;
  std::set<int> finished_;
  bool switch_reduction_ = false;
  bool flow_level_ = true;
  double message_overhead_ = 0;
  std::map<std::tuple<int, int, int, long long>, collectives::Algorithm> chosen_;

  /// "auto": NCCL-style choice, logged once per (kind, group size, nodes, size).
  collectives::Algorithm choose_algorithm(collectives::Kind kind, const collectives::GroupLayout& layout, double bytes,
                                          const std::vector<sg4::Host*>& members, double width) {
    const auto key = std::make_tuple(static_cast<int>(kind), layout.size(), layout.nodes(), static_cast<long long>(bytes));
    auto it = chosen_.find(key);
    if (it != chosen_.end()) return it->second;
    const auto a = flow_level_ ? collectives::choose(kind, layout, bytes, link_params(members, layout.node_of_member, width))
                               : collectives::choose_without_routes(kind, layout);
    spdlog::debug("auto: {} of {} bytes over {} ranks on {} nodes -> {}", collectives::kind_name(kind), bytes,
                  layout.size(), layout.nodes(), collectives::algorithm_name(a));
    chosen_[key] = a;
    return a;
  }
};

void Runtime::run_worker(int id) {
  const auto& wk = w_.workers[id];
  for (const auto& op : wk.ops) {
    if (op.kind == Op::Kind::Recv) mailbox(op.ref, id)->set_receiver(sg4::Actor::self());
  }
  std::set<uintptr_t> early;
  std::unordered_map<int, double> events;  // event id -> completion time on its side stream
  std::unordered_map<int, double> streams_free;  // side stream -> time it is free
  std::unordered_map<int, sg4::CommPtr> transfers;  // event id -> memory transfer in flight
  for (const auto& op : wk.ops) {
    const double t0 = sg4::Engine::get_clock();
    switch (op.kind) {
      case Op::Kind::Compute: {
        const auto& cost = w_.costs[op.ref];
        if (cost.duration > 0) {
          sg4::this_actor::sleep_for(cost.duration);
          rec_.count_activity();
        }
        rec_.add_breakdown(id, cost.by_category);
        rec_.event({id, 0, cost.main_category(), op.pass, op.micro_batch, op.chunk, op.ref, t0, sg4::Engine::get_clock()});
        break;
      }
      case Op::Kind::Send: send(id, op); break;
      case Op::Kind::Recv: recv(id, op, early); break;
      case Op::Kind::CollStart: start_collective(id, op.ref); break;
      case Op::Kind::CollWait: {
        wait_collective(id, op.ref);
        const double waited = sg4::Engine::get_clock() - t0;
        rec_.add_time(id, w_.collectives[op.ref].category, waited);
        if (waited > 0)
          rec_.event({id, 0, w_.collectives[op.ref].category, op.pass, -1, -1, op.ref, t0, t0 + waited});
        break;
      }
      case Op::Kind::IterationEnd: rec_.iteration_end(id, op.ref, t0); break;
      case Op::Kind::CommAsync: {
        // Each side stream is a FIFO of analytic transfers: no SimGrid activity is needed.
        const auto& cost = w_.costs[op.ref];
        double& stream_free = streams_free[op.stream];
        const double start = std::max({t0, stream_free, op.after >= 0 ? events.at(op.after) : 0.0});
        stream_free = events[op.micro_batch] = start + cost.duration;
        rec_.event({id, op.stream, cost.main_category(), op.pass, -1, op.chunk, op.ref, start, start + cost.duration});
        break;
      }
      case Op::Kind::MemoryStart: {
        auto* memory = p_.memories.at(op.chunk);
        auto* self = host(id, 0);
        const auto bytes = static_cast<uint64_t>(op.bytes);
        transfers[op.micro_batch] =
            op.ref == 0 ? sg4::Comm::sendto_async(memory, self, bytes) : sg4::Comm::sendto_async(self, memory, bytes);
        break;
      }
      case Op::Kind::MemoryWait: {
        auto it = transfers.find(op.micro_batch);
        it->second->wait();
        transfers.erase(it);
        rec_.count_activity();
        rec_.add_time(id, TimeCategory::Offload, sg4::Engine::get_clock() - t0);
        break;
      }
      case Op::Kind::WaitEvent: {
        const double until = events.at(op.micro_batch);
        if (until > t0) {
          sg4::this_actor::sleep_for(until - t0);
          rec_.count_activity();
          rec_.add_time(id, w_.costs[op.ref].main_category(), until - t0);
        }
        break;
      }
    }
    util::progress_counter().fetch_add(1, std::memory_order_relaxed);
  }
  finished_.insert(id);
}

void Runtime::send(int id, const Op& op) {
  const double t0 = sg4::Engine::get_clock();
  const uintptr_t tag = tag_of(op.pass, op.micro_batch, op.chunk);
  send_posted_[{id, op.ref, tag}] = t0;
  if (message_overhead_ > 0) sg4::this_actor::sleep_for(message_overhead_);
  const auto bytes = static_cast<uint64_t>(op.bytes * p_.lane_width);  // one flow per host of the group
  std::vector<sg4::CommPtr> comms = {mailbox(id, op.ref)->put_async(reinterpret_cast<void*>(tag), bytes)};
  for (int lane = 1; lane < lanes(id); ++lane) comms.push_back(sg4::Comm::sendto_async(host(id, lane), host(op.ref, lane), bytes));
  sg4::Comm::wait_all(comms);
  rec_.count_activity(static_cast<long long>(comms.size()));
  const double t1 = sg4::Engine::get_clock();
  rec_.add_time(id, TimeCategory::PpComm, t1 - t0);
  rec_.event({id, 1, TimeCategory::PpComm, op.pass, op.micro_batch, op.chunk, op.ref, t0, t1});
}

void Runtime::recv(int id, const Op& op, std::set<uintptr_t>& early) {
  const double t0 = sg4::Engine::get_clock();
  const uintptr_t want = tag_of(op.pass, op.micro_batch, op.chunk);
  if (!early.erase(want)) {
    auto* mb = mailbox(op.ref, id);
    while (true) {
      const auto got = reinterpret_cast<uintptr_t>(mb->get<void>());
      if (got == want) break;
      early.insert(got);
    }
  }
  const double t1 = sg4::Engine::get_clock();
  auto it = send_posted_.find({op.ref, id, want});
  const double posted = it == send_posted_.end() ? t0 : it->second;
  if (it != send_posted_.end()) send_posted_.erase(it);
  const double idle = std::clamp(posted - t0, 0.0, t1 - t0);
  rec_.add_time(id, TimeCategory::PpComm, t1 - t0 - idle);
  if (t1 > t0) rec_.event({id, 0, TimeCategory::PpComm, op.pass, op.micro_batch, op.chunk, op.ref, t0 + idle, t1});
}

void Runtime::start_collective(int id, int spec) {
  if (w_.collectives[spec].category == TimeCategory::EpComm) ++pending_all_to_all_[id];
  const int index = collective_starts_[id][spec]++;
  auto inst = instance(spec, index);
  const auto& group = w_.groups[w_.collectives[spec].group];
  if (++inst->arrived < static_cast<int>(group.size())) return;
  const int g = w_.collectives[spec].group;
  streams_[g].ready.emplace_back(spec, inst);
  if (streams_[g].active) return;
  streams_[g].active = true;
  sg4::Actor::create("collectives", host(group.front()), [this, g]() { drain_stream(g); });
}

void Runtime::drain_stream(int group) {
  auto& stream = streams_[group];
  while (!stream.ready.empty()) {
    const auto [spec, inst] = stream.ready.front();
    stream.ready.pop_front();
    if (w_.collectives[spec].yields_to_all_to_all) {
      const auto& members = w_.groups[w_.collectives[spec].group];
      std::unique_lock<sg4::Mutex> lock(*all_to_all_mutex_);
      while (std::any_of(members.begin(), members.end(), [&](int m) { return pending_all_to_all_[m] > 0; }))
        all_to_all_idle_->wait(lock);
    }
    drive_collective(spec, inst);
  }
  stream.active = false;  // no simcall between the empty check and here: no arrival can slip in
}

void Runtime::wait_collective(int id, int spec) {
  const int index = collective_waits_[id][spec]++;
  auto inst = instance(spec, index);
  std::unique_lock<sg4::Mutex> lock(*inst->mutex);
  while (!inst->done) inst->cv->wait(lock);
}

void Runtime::drive_collective(int spec, const std::shared_ptr<CollectiveInstance>& inst) {
  const auto& c = w_.collectives[spec];
  const auto& group = w_.groups[c.group];
  const double t0 = sg4::Engine::get_clock();
  collectives::GroupLayout layout;
  std::vector<sg4::Host*> switches;  // of the distinct nodes, in order of appearance
  for (int member : group) {
    const int node = w_.workers[member].node;
    layout.node_of_member.push_back(node);
    if (std::find(switches.begin(), switches.end(), p_.switches[node]) == switches.end()) switches.push_back(p_.switches[node]);
  }
  layout.switch_reduction = switch_reduction_ && switches.front() != nullptr;
  const int n_lanes = lanes(group.front());
  std::vector<sg4::Host*> endpoints;  // lane after lane: the members' hosts of that lane, then the switches
  for (int lane = 0; lane < n_lanes; ++lane) {
    for (int member : group) endpoints.push_back(host(member, lane));
    endpoints.insert(endpoints.end(), switches.begin(), switches.end());
  }
  const double scale = p_.lane_width;  // bytes of the GPUs one host carries
  auto algorithm = c.algorithm;
  if (algorithm == collectives::Algorithm::Auto)
    algorithm = choose_algorithm(c.kind, layout, c.bytes,
                                 std::vector<sg4::Host*>(endpoints.begin(), endpoints.begin() + group.size()), scale);
  const auto plan = engine::replicate_lanes(collectives::make_plan(c.kind, algorithm, layout, c.bytes, c.matrix),
                                            static_cast<int>(group.size() + switches.size()), n_lanes);
  rec_.count_activity(run_plan(plan, endpoints, scale, flow_level_, message_overhead_));
  const double t1 = sg4::Engine::get_clock();
  for (int member : group) rec_.event({member, 1, c.category, workload::Pass::None, -1, -1, spec, t0, t1});
  if (c.category == TimeCategory::EpComm) {
    std::unique_lock<sg4::Mutex> idle(*all_to_all_mutex_);
    for (int member : group) --pending_all_to_all_[member];
    all_to_all_idle_->notify_all();
  }
  std::unique_lock<sg4::Mutex> lock(*inst->mutex);
  inst->done = true;
  inst->cv->notify_all();
}

}  // namespace

report::Recorder run_workload(const workload::Workload& w, const scenario::Scenario& s, std::vector<bool> traced) {
  Simulation sim(s, s.parallelism.tp);
  const auto& platform = sim.platform();

  report::Recorder rec(static_cast<int>(w.workers.size()), w.iterations, std::move(traced));
  Runtime rt(w, platform, rec);
  rt.set_switch_reduction(s.hardware.nvswitch_reduction);
  rt.set_flow_level(sim.flow_level());
  rt.set_message_overhead(s.network.message_overhead);
  for (size_t i = 0; i < w.workers.size(); ++i)
    sg4::Actor::create("worker" + std::to_string(i), rt.host(static_cast<int>(i)),
                       [&rt, i]() { rt.run_worker(static_cast<int>(i)); });
  sim.run();
  for (size_t i = 0; i < w.workers.size(); ++i)
    if (!rt.finished(static_cast<int>(i)))
      throw SimulationError("worker " + std::to_string(i) + " did not finish its program (deadlock in the workload)");
  rec.set_links(sim.link_stats());
  return rec;
}

}  // namespace llmsim::engine

