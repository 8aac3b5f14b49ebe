#pragma once
// nccl-tests-style collective benchmark on a scenario's cluster: one rank per GPU (the first `ranks` GPUs in
// rank order), message sizes from min to max multiplying by `factor`, each collective run alone on an idle
// network. Reports time, algbw = size / time and busbw = algbw * bus_factor (nccl-tests doc/PERFORMANCE.md).
#include <string>
#include <vector>

#include "llmsim/collectives/collective.hpp"
#include "llmsim/scenario/scenario.hpp"

namespace llmsim::bench {

struct BenchOptions {
  collectives::Kind kind = collectives::Kind::AllReduce;
  collectives::Algorithm algorithm = collectives::Algorithm::Auto;
  int ranks = 0;             ///< 0 = every GPU of the cluster
  double min_bytes = 1024;
  double max_bytes = 8.0 * 1024 * 1024 * 1024;
  double factor = 2;
  int window = 0;            ///< direct algorithms: concurrent peers (0 = all)
};

struct BenchRow {
  double bytes = 0;      ///< per rank ("size")
  std::string algorithm; ///< the one that ran (auto resolved)
  double time_s = 0;
  double algbw = 0;      ///< [bytes/s]
  double busbw = 0;      ///< [bytes/s]
};

/// Parses "1K", "64M", "8G" (powers of 1024) or a plain byte count; throws ScenarioError at `what`.
double parse_size(const std::string& text, const std::string& what);

/// Runs the sweep in one simulation (one per process). Throws ScenarioError when the algorithm cannot run the
/// collective on these ranks or the rank count exceeds the cluster.
std::vector<BenchRow> bench_collective(const scenario::Scenario& s, const BenchOptions& o);

std::string bench_table(const std::vector<BenchRow>& rows, const BenchOptions& o, int ranks);
std::string bench_csv(const std::vector<BenchRow>& rows);

}  // namespace llmsim::bench
