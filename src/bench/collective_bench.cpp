#include "llmsim/bench/collective_bench.hpp"

#include <simgrid/s4u.hpp>

#include <cmath>
#include <cstdio>
#include <sstream>

#include "llmsim/collectives/aggregate.hpp"
#include "llmsim/collectives/auto_select.hpp"
#include "llmsim/engine/plan_runner.hpp"
#include "llmsim/engine/simulation.hpp"
#include "llmsim/util/error.hpp"

namespace sg4 = simgrid::s4u;

namespace llmsim::bench {

double parse_size(const std::string& text, const std::string& what) {
  const auto bad = [&] {
    return ScenarioError(what, "\"" + text + "\" is not a size of at least one byte (a decimal number with an optional "
                               "K, M or G suffix)");
  };
  const size_t digits = text.find_first_not_of("0123456789.eE+-");
  const std::string unit = digits == std::string::npos ? "" : text.substr(digits);
  const auto v = decimal_number(text.substr(0, digits));
  const double scale = unit.empty() ? 1 : unit == "K" ? 1024.0 : unit == "M" ? 1048576.0 : unit == "G" ? 1073741824.0 : -1;
  if (!v || scale < 0 || !(*v * scale >= 1)) throw bad();
  return *v * scale;
}

std::vector<BenchRow> bench_collective(const scenario::Scenario& s, const BenchOptions& o) {
  const int gpus = s.cluster.total_gpus();
  const int n = o.ranks > 0 ? o.ranks : gpus;
  if (n > gpus)
    throw ScenarioError("--ranks", std::to_string(n) + " ranks but the cluster has " + std::to_string(gpus) + " GPUs");
  collectives::GroupLayout layout;
  layout.switch_reduction = s.hardware.nvswitch_reduction;
  layout.window = o.window;
  for (int r = 0; r < n; ++r) layout.node_of_member.push_back(r / s.cluster.gpus_per_node);
  if (o.algorithm != collectives::Algorithm::Auto && !collectives::supports(o.kind, o.algorithm, layout))
    throw ScenarioError("--algorithm", std::string(collectives::algorithm_name(o.algorithm)) + " cannot run " +
                                           collectives::kind_name(o.kind) + " on " + std::to_string(n) + " ranks here: it "
                                           "needs " + collectives::requirements(o.algorithm));
  if (o.kind == collectives::Kind::SendRecv && n != 2) throw ScenarioError("--ranks", "send-recv needs --ranks 2");

  engine::Simulation sim(s, 1);
  const auto& p = sim.platform();
  std::vector<sg4::Host*> endpoints;
  for (int r = 0; r < n; ++r) endpoints.push_back(p.host(r / s.cluster.gpus_per_node, r % s.cluster.gpus_per_node));
  const std::vector<sg4::Host*> members = endpoints;
  for (int node = 0; node <= layout.node_of_member.back(); ++node) endpoints.push_back(p.switches[node]);
  const bool flows = sim.flow_level();
  const auto links = flows ? engine::link_params(members, layout.node_of_member, 1) : collectives::LinkParams{};

  std::vector<BenchRow> rows;
  sg4::Actor::create("bench", endpoints.front(), [&]() {
    for (double bytes = o.min_bytes; bytes <= o.max_bytes * (1 + 1e-9); bytes *= o.factor) {
      auto algorithm = o.algorithm;
      if (algorithm == collectives::Algorithm::Auto)
        algorithm = flows ? collectives::choose(o.kind, layout, bytes, links) : collectives::choose_without_routes(o.kind, layout);
      std::vector<double> matrix;
      if (o.kind == collectives::Kind::AllToAllV)  // uneven: row i sends (1 + i mod 4) shares
        for (int i = 0; i < n; ++i)
          for (int j = 0; j < n; ++j) matrix.push_back(i == j ? 0 : bytes / n * (1 + i % 4) / 2.5);
      auto plan = collectives::make_plan(o.kind, algorithm, layout, bytes, matrix);
      if (sim.aggregate_flows()) plan = collectives::aggregate_flows(plan, layout);
      const double t0 = sg4::Engine::get_clock();
      engine::run_plan(plan, endpoints, 1, flows, s.network.message_overhead);
      const double t = sg4::Engine::get_clock() - t0;
      const double algbw = t > 0 ? bytes / t : 0;
      rows.push_back({bytes, collectives::algorithm_name(algorithm), t, algbw, algbw * collectives::bus_factor(o.kind, n)});
    }
  });
  sim.run();
  return rows;
}

std::string bench_table(const std::vector<BenchRow>& rows, const BenchOptions& o, int ranks) {
  std::ostringstream os;
  char line[160];
  os << "# " << collectives::kind_name(o.kind) << " on " << ranks << " ranks (busbw factor "
     << collectives::bus_factor(o.kind, ranks) << ")\n";
  std::snprintf(line, sizeof line, "%14s %18s %14s %12s %12s\n", "size(B)", "algorithm", "time(us)", "algbw(GB/s)",
                "busbw(GB/s)");
  os << line;
  for (const auto& r : rows) {
    std::snprintf(line, sizeof line, "%14.0f %18s %14.2f %12.2f %12.2f\n", r.bytes, r.algorithm.c_str(), r.time_s * 1e6,
                  r.algbw / 1e9, r.busbw / 1e9);
    os << line;
  }
  return os.str();
}

std::string bench_csv(const std::vector<BenchRow>& rows) {
  std::ostringstream os;
  os << "size_bytes,algorithm,time_s,algbw_GBps,busbw_GBps\n";
  for (const auto& r : rows) os << r.bytes << ',' << r.algorithm << ',' << r.time_s << ',' << r.algbw / 1e9 << ',' << r.busbw / 1e9 << '\n';
  return os.str();
}

}  // namespace llmsim::bench
