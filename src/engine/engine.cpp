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
#include <variant>

#include "llmsim/collectives/aggregate.hpp"
#include "llmsim/collectives/auto_select.hpp"
#include "llmsim/engine/plan_runner.hpp"
#include "llmsim/engine/simulation.hpp"
#include "llmsim/util/error.hpp"
#include "llmsim/util/progress.hpp"

namespace sg4 = simgrid::s4u;

namespace llmsim::engine {

using workload::TimeCategory;

namespace {

/// Message tag of a pipeline transfer: (pass, micro-batch, chunk), non-zero so it can travel as a payload.
/// A pipeline message: activations (forward) or their gradient (a whole or B-only backward sends the same
/// gradient, so schedules that mix them still match) of a micro-batch for a chunk.
uintptr_t tag_of(const workload::PassStep& m) {
  const uintptr_t gradient = m.pass == workload::Pass::Forward ? 0 : 1;
  return ((static_cast<uintptr_t>(m.micro_batch) << 20 | static_cast<uintptr_t>(m.chunk)) << 1 | gradient) + 1;
}

/// What a worker's actor keeps while it runs its program.
struct WorkerState {
  int id = 0;
  std::set<uintptr_t> early;                        // messages that arrived before their Recv
  std::unordered_map<int, double> events;           // event id -> completion time on its side stream
  std::unordered_map<int, double> streams_free;     // side stream -> time it is free
  std::unordered_map<int, sg4::CommPtr> transfers;  // event id -> memory transfer in flight
  double host = 0;  // when the host has issued everything so far (it runs ahead of the GPU until it syncs)
  struct PendingSend {
    workload::SendOp op;
    double posted = 0;
    std::vector<sg4::CommPtr> comms;
  };
  std::vector<PendingSend> sends;  // overlapped sends in flight
};

/// The direction of a pipeline message of `pass`: activations (0) or activation gradients (1).
int direction(workload::Pass pass) { return pass == workload::Pass::Forward ? 0 : 1; }

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
      for (const auto& o : wk.ops)
        if (const auto* start = std::get_if<workload::CollectiveStartOp>(&o))
          uses[start->collective] = std::max(uses[start->collective], ++mine[start->collective]);
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
  void set_aggregate_flows(bool on) { aggregate_flows_ = on; }
  void set_message_overhead(double seconds) { message_overhead_ = seconds; }
  bool finished(int id) const { return finished_.count(id) > 0; }

 private:
  // One per op kind, run by the worker's actor; each starts at the current simulated time.
  void run(WorkerState& w, const workload::ComputeOp& o);
  void run(WorkerState& w, const workload::CollectiveStartOp& o) { start_collective(w.id, o.collective); }
  void run(WorkerState& w, const workload::CollectiveWaitOp& o);
  void run(WorkerState& w, const workload::SendOp& o);
  void run(WorkerState& w, const workload::RecvOp& o);
  void run(WorkerState& w, const workload::SendWaitOp& o) { finish_sends(w, direction(o.pass)); }
  void run(WorkerState& w, const workload::IterationEndOp& o) {
    finish_sends(w, -1);
    rec_.iteration_end(w.id, o.iteration, sg4::Engine::get_clock());
  }
  /// Waits for the worker's overlapped sends in `dir` (-1: all of them).
  void finish_sends(WorkerState& w, int dir);
  /// Waits for one send's flows: the time from `blocked_from` is pipeline communication; the event spans the
  /// transfer, from the post to the delivery.
  void finish_send(int id, const WorkerState::PendingSend& s, double blocked_from);
  void run(WorkerState& w, const workload::CommAsyncOp& o);
  void run(WorkerState& w, const workload::WaitEventOp& o);
  void run(WorkerState& w, const workload::MemoryStartOp& o);
  void run(WorkerState& w, const workload::MemoryWaitOp& o);
  void run(WorkerState& w, const workload::HostSyncOp&) { w.host = std::max(w.host, sg4::Engine::get_clock()); }
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
  bool aggregate_flows_ = false;
  double message_overhead_ = 0;
  std::map<std::tuple<int, int, int, long long>, collectives::Algorithm> chosen_;

  /// "auto": NCCL-style choice, logged once per (kind, group size, nodes, size).
  collectives::Algorithm choose_algorithm(collectives::Kind kind, const collectives::GroupLayout& layout, double bytes,
                                          const std::vector<sg4::Host*>& members, double width) {
    const auto key = std::make_tuple(static_cast<int>(kind), layout.represents(), layout.nodes(), static_cast<long long>(bytes));
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
  for (const auto& o : wk.ops)
    if (const auto* recv = std::get_if<workload::RecvOp>(&o)) mailbox(recv->peer, id)->set_receiver(sg4::Actor::self());
  WorkerState state;
  state.id = id;
  for (const auto& o : wk.ops) {
    std::visit([this, &state](const auto& x) { run(state, x); }, o);
    util::progress_counter().fetch_add(1, std::memory_order_relaxed);
  }
  finished_.insert(id);
}

void Runtime::run(WorkerState& w, const workload::ComputeOp& o) {
  const double t0 = sg4::Engine::get_clock();
  const auto& cost = w_.costs[o.cost];
  // The kernels run as the host issues them: the block ends no earlier than the host's last launch.
  w.host += cost.host;
  const double launch_bound = std::max(0.0, w.host - (t0 + cost.duration));
  if (cost.duration + launch_bound > 0) {
    sg4::this_actor::sleep_for(cost.duration + launch_bound);
    rec_.count_activity();
  }
  rec_.add_breakdown(w.id, cost.by_category);
  rec_.add_time(w.id, TimeCategory::Host, launch_bound);
  rec_.add_dynamic_energy(w.id, cost.dynamic_energy);
  rec_.event({w.id, 0, cost.main_category(), o.step.pass, o.step.micro_batch, o.step.chunk, o.cost, t0,
              sg4::Engine::get_clock()});
}

void Runtime::run(WorkerState& w, const workload::CollectiveWaitOp& o) {
  const double t0 = sg4::Engine::get_clock();
  wait_collective(w.id, o.collective);
  const double waited = sg4::Engine::get_clock() - t0;
  const TimeCategory category = w_.collectives[o.collective].category;
  rec_.add_time(w.id, category, waited);
  if (waited > 0) rec_.event({w.id, 0, category, o.pass, -1, -1, o.collective, t0, t0 + waited});
}

void Runtime::run(WorkerState& w, const workload::CommAsyncOp& o) {
  // Each side stream is a FIFO of analytic transfers: no SimGrid activity is needed.
  const double t0 = sg4::Engine::get_clock();
  const auto& cost = w_.costs[o.cost];
  double& stream_free = w.streams_free[o.stream];
  const double start = std::max({t0, stream_free, o.after >= 0 ? w.events.at(o.after) : 0.0});
  stream_free = w.events[o.event] = start + cost.duration;
  rec_.event({w.id, o.stream, cost.main_category(), o.pass, -1, o.chunk, o.cost, start, start + cost.duration});
}

void Runtime::run(WorkerState& w, const workload::WaitEventOp& o) {
  const double t0 = sg4::Engine::get_clock();
  const double until = w.events.at(o.event);
  if (until <= t0) return;
  sg4::this_actor::sleep_for(until - t0);
  rec_.count_activity();
  rec_.add_time(w.id, w_.costs[o.cost].main_category(), until - t0);
}

void Runtime::run(WorkerState& w, const workload::MemoryStartOp& o) {
  auto* memory = p_.memories.at(o.endpoint);
  auto* self = host(w.id, 0);
  const auto bytes = static_cast<uint64_t>(o.bytes);
  const bool read = o.direction == workload::MemoryDirection::Read;
  w.transfers[o.event] = read ? sg4::Comm::sendto_async(memory, self, bytes) : sg4::Comm::sendto_async(self, memory, bytes);
}

void Runtime::run(WorkerState& w, const workload::MemoryWaitOp& o) {
  const double t0 = sg4::Engine::get_clock();
  auto it = w.transfers.find(o.event);
  it->second->wait();
  w.transfers.erase(it);
  rec_.count_activity();
  rec_.add_time(w.id, TimeCategory::Offload, sg4::Engine::get_clock() - t0);
}

void Runtime::run(WorkerState& w, const workload::SendOp& o) {
  const double t0 = sg4::Engine::get_clock();
  const int id = w.id;
  const uintptr_t tag = tag_of(o.message);
  send_posted_[{id, o.peer, tag}] = t0;
  if (message_overhead_ > 0) sg4::this_actor::sleep_for(message_overhead_);
  const auto bytes = static_cast<uint64_t>(o.bytes * p_.lane_width);  // one flow per host of the group
  WorkerState::PendingSend s{o, t0, {mailbox(id, o.peer)->put_async(reinterpret_cast<void*>(tag), bytes)}};
  for (int lane = 1; lane < lanes(id); ++lane)
    s.comms.push_back(sg4::Comm::sendto_async(host(id, lane), host(o.peer, lane), bytes));
  if (o.overlapped) {  // only the posting overhead blocks the worker now
    rec_.add_time(id, TimeCategory::PpComm, sg4::Engine::get_clock() - t0);
    w.sends.push_back(std::move(s));
  } else {
    finish_send(id, s, t0);
  }
}

void Runtime::finish_sends(WorkerState& w, int dir) {
  auto waits = [dir](const WorkerState::PendingSend& s) { return dir < 0 || direction(s.op.message.pass) == dir; };
  for (const auto& s : w.sends)
    if (waits(s)) finish_send(w.id, s, sg4::Engine::get_clock());
  w.sends.erase(std::remove_if(w.sends.begin(), w.sends.end(), waits), w.sends.end());
}

void Runtime::finish_send(int id, const WorkerState::PendingSend& s, double blocked_from) {
  sg4::Comm::wait_all(s.comms);
  rec_.count_activity(static_cast<long long>(s.comms.size()));
  const double t1 = sg4::Engine::get_clock();
  rec_.add_time(id, TimeCategory::PpComm, t1 - blocked_from);
  double delivered = s.posted;
  for (const auto& comm : s.comms) delivered = std::max(delivered, comm->get_finish_time());
  const auto& m = s.op.message;
  rec_.event({id, 1, TimeCategory::PpComm, m.pass, m.micro_batch, m.chunk, s.op.peer, s.posted, delivered});
}

void Runtime::run(WorkerState& w, const workload::RecvOp& o) {
  const double t0 = sg4::Engine::get_clock();
  const int id = w.id;
  const uintptr_t want = tag_of(o.message);
  if (!w.early.erase(want)) {
    auto* mb = mailbox(o.peer, id);
    while (true) {
      const auto got = reinterpret_cast<uintptr_t>(mb->get<void>());
      if (got == want) break;
      w.early.insert(got);
    }
  }
  const double t1 = sg4::Engine::get_clock();
  auto it = send_posted_.find({o.peer, id, want});
  const double posted = it == send_posted_.end() ? t0 : it->second;
  if (it != send_posted_.end()) send_posted_.erase(it);
  const double idle = std::clamp(posted - t0, 0.0, t1 - t0);
  rec_.add_time(id, TimeCategory::PpComm, t1 - t0 - idle);
  const auto& m = o.message;
  if (t1 > t0) rec_.event({id, 0, TimeCategory::PpComm, m.pass, m.micro_batch, m.chunk, o.peer, t0 + idle, t1});
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
  layout.point_to_point = c.point_to_point;
  if (auto folded = w_.represents.find(c.group); folded != w_.represents.end()) layout.represented = folded->second;
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
  auto member_plan = collectives::make_plan(c.kind, algorithm, layout, c.bytes, c.matrix);
  if (aggregate_flows_) member_plan = collectives::aggregate_flows(member_plan, layout);
  const auto plan = engine::replicate_lanes(member_plan, static_cast<int>(group.size() + switches.size()), n_lanes);
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

/// Nodes hosting a worker's GPUs, when replicas are folded (the platform then leaves the others out); empty
/// otherwise, so that every topology builds the whole cluster as before.
std::vector<bool> used_nodes(const workload::Workload& w, const scenario::Scenario& s) {
  if (w.represents.empty()) return {};
  std::vector<bool> used(s.cluster.nodes, false);
  for (const auto& wk : w.workers)
    for (int g = 0; g < wk.width; ++g) used[(wk.first_rank + g) / s.cluster.gpus_per_node] = true;
  return used;
}

}  // namespace

report::Recorder run_workload(const workload::Workload& w, const scenario::Scenario& s, std::vector<bool> traced) {
  Simulation sim(s, s.parallelism.tp, used_nodes(w, s));
  const auto& platform = sim.platform();

  report::Recorder rec(static_cast<int>(w.workers.size()), w.iterations, std::move(traced));
  Runtime rt(w, platform, rec);
  rt.set_switch_reduction(s.hardware.nvswitch_reduction);
  rt.set_flow_level(sim.flow_level());
  rt.set_aggregate_flows(sim.aggregate_flows());
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

