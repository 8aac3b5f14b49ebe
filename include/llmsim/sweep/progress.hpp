#pragma once
// Progress of a sweep on stderr: on a terminal one line redrawn with \r ("[#####     ] 12/24 done, 1 failed,
// ETA 0:07"); otherwise one line per finished point ("sweep: 12/24 0011 ok parallelism.tp=4 ..., 1 failed,
// ETA 7 s"). The ETA extrapolates the mean time per point finished in this session.
#include <chrono>
#include <ostream>

#include "llmsim/sweep/plan.hpp"
#include "llmsim/sweep/point_run.hpp"

namespace llmsim::sweep {

class Progress {
 public:
  /// `done` points were already final before this session (resumed).
  Progress(std::ostream& out, bool terminal, size_t total, size_t done);
  void point_done(const Point& p, const Outcome& o);
  /// Ends the redrawn line on a terminal.
  void close();

 private:
  std::string eta() const;
  std::ostream& out_;
  bool terminal_;
  size_t total_, done_, failed_ = 0, this_session_ = 0;
  std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
};

}  // namespace llmsim::sweep
