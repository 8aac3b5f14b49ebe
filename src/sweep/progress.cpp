#include "llmsim/sweep/progress.hpp"

#include <cstdio>

namespace llmsim::sweep {

Progress::Progress(std::ostream& out, bool terminal, size_t total, size_t done)
    : out_(out), terminal_(terminal), total_(total), done_(done) {}

std::string Progress::eta() const {
  if (this_session_ == 0) return "?";
  const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  const long s = static_cast<long>(elapsed / this_session_ * (total_ - done_) + 0.5);
  char buf[32];
  if (terminal_)
    std::snprintf(buf, sizeof buf, "%ld:%02ld:%02ld", s / 3600, s / 60 % 60, s % 60);
  else
    std::snprintf(buf, sizeof buf, "%ld s", s);
  return buf;
}

void Progress::point_done(const Point& p, const Outcome& o) {
  ++done_;
  ++this_session_;
  if (o.status == "failed") ++failed_;
  const std::string counts = std::to_string(done_) + "/" + std::to_string(total_);
  if (terminal_) {
    const size_t width = 30, filled = total_ ? width * done_ / total_ : width;
    out_ << "\r[" << std::string(filled, '#') << std::string(width - filled, ' ') << "] " << counts << " done, "
         << failed_ << " failed, ETA " << eta() << "   " << std::flush;
    return;
  }
  std::string params;
  for (const auto& s : p.sets) params += " " + s;
  out_ << "sweep: " << counts << " " << p.id << " " << o.status << params
       << (o.error.empty() ? "" : " (" + o.error + ")") << ", " << failed_ << " failed, ETA " << eta() << "\n"
       << std::flush;
}

void Progress::close() {
  if (terminal_ && this_session_ > 0) out_ << "\n" << std::flush;
}

}  // namespace llmsim::sweep
