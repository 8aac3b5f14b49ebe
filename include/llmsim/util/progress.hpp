#pragma once
// A progress line on stderr for long runs: "  simulating: 42% (1.3e+06 of 3.1e+06 ops), 12 s", redrawn once a
// second by a thread of its own from a process-wide counter that the simulation bumps (one per op executed or
// request finished). It appears only after the first 2 s, and the line is erased when the run ends, so short runs
// and redirected stderr (when `auto`: stderr is not a terminal) print nothing.
#include <atomic>
#include <condition_variable>
#include <mutex>
#include <string>
#include <thread>

namespace llmsim::util {

/// The counter the simulation bumps; reset by each ProgressLine.
std::atomic<long long>& progress_counter();

class ProgressLine {
 public:
  /// `unit` names what is counted ("ops", "requests"); `total` > 0 gives a percentage.
  ProgressLine(bool enabled, std::string unit, double total);
  ~ProgressLine();
  ProgressLine(const ProgressLine&) = delete;
  ProgressLine& operator=(const ProgressLine&) = delete;

 private:
  void loop();
  std::string unit_;
  double total_ = 0;
  bool drawn_ = false, stop_ = false;
  std::mutex mutex_;
  std::condition_variable wake_;
  std::thread thread_;
};

}  // namespace llmsim::util
