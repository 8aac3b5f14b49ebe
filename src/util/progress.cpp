#include "llmsim/util/progress.hpp"

#include <chrono>
#include <algorithm>
#include <cstdio>

#include "llmsim/util/interrupt.hpp"

namespace llmsim::util {

std::atomic<long long>& progress_counter() {
  static std::atomic<long long> counter{0};
  return counter;
}

ProgressLine::ProgressLine(bool enabled, std::string unit, double total) : unit_(std::move(unit)), total_(total) {
  progress_counter() = 0;
  if (!enabled) return;
  const DeferInterrupts defer;  // the thread inherits the blocked interrupt signals: they go to the main thread
  thread_ = std::thread([this] { loop(); });
}

ProgressLine::~ProgressLine() {
  if (!thread_.joinable()) return;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stop_ = true;
  }
  wake_.notify_all();
  thread_.join();
  if (drawn_) std::fprintf(stderr, "\r\033[K");  // erase the line
}

void ProgressLine::loop() {
  const auto start = std::chrono::steady_clock::now();
  std::unique_lock<std::mutex> lock(mutex_);
  if (wake_.wait_for(lock, std::chrono::seconds(2), [this] { return stop_; })) return;
  do {
    const double done = static_cast<double>(progress_counter().load());
    const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (total_ > 0)
      std::fprintf(stderr, "\r\033[K  simulating: %.0f%% (%.3g of %.3g %s), %.0f s", 100 * std::min(done / total_, 0.99),
                   done, total_, unit_.c_str(), elapsed);
    else
      std::fprintf(stderr, "\r\033[K  simulating: %.3g %s, %.0f s", done, unit_.c_str(), elapsed);
    std::fflush(stderr);
    drawn_ = true;
  } while (!wake_.wait_for(lock, std::chrono::seconds(1), [this] { return stop_; }));
}

}  // namespace llmsim::util
