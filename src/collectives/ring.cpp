#include "llmsim/collectives/ring.hpp"

namespace llmsim::collectives {

const char* kind_name(Kind k) {
  switch (k) {
    case Kind::AllReduce: return "all-reduce";
    case Kind::ReduceScatter: return "reduce-scatter";
    case Kind::AllGather: return "all-gather";
  }
  return "?";
}

double ring_edge_bytes(Kind k, int n, double bytes) {
  if (n <= 1) return 0;
  const double share = static_cast<double>(n - 1) / n * bytes;
  return k == Kind::AllReduce ? 2 * share : share;
}

int ring_steps(Kind k, int n) {
  if (n <= 1) return 0;
  return k == Kind::AllReduce ? 2 * (n - 1) : n - 1;
}

double ring_time(Kind k, int n, double bytes, double bandwidth, double alpha) {
  return ring_edge_bytes(k, n, bytes) / bandwidth + ring_steps(k, n) * alpha;
}

}  // namespace llmsim::collectives
