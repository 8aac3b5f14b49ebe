#include "llmsim/run/chunk_search.hpp"

#include <spdlog/spdlog.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmath>
#include <limits>
#include <map>

#include "llmsim/strategy/moe_pipeline.hpp"
#include "llmsim/util/error.hpp"

namespace llmsim::run {
namespace {

/// Runs `f` in a forked child and returns its result. The parent must not have started SimGrid.
double in_child(const std::function<double()>& f) {
  int fd[2];
  if (pipe(fd) != 0) throw SimulationError("S_p search: cannot create a pipe");
  const pid_t pid = fork();
  if (pid < 0) throw SimulationError("S_p search: cannot fork");
  if (pid == 0) {
    close(fd[0]);
    spdlog::set_level(spdlog::level::off);
    double value = std::numeric_limits<double>::quiet_NaN();
    try {
      value = f();
    } catch (...) {
    }
    const bool sent = write(fd[1], &value, sizeof value) == static_cast<ssize_t>(sizeof value);
    _exit(sent ? 0 : 1);
  }
  close(fd[1]);
  double value = std::numeric_limits<double>::quiet_NaN();
  const bool got = read(fd[0], &value, sizeof value) == static_cast<ssize_t>(sizeof value);
  close(fd[0]);
  int status = 0;
  waitpid(pid, &status, 0);
  if (!got || !WIFEXITED(status) || WEXITSTATUS(status) != 0 || std::isnan(value))
    throw SimulationError("S_p search: a candidate simulation failed (run it with a numeric allreduce_chunk_bytes "
                          "to see why)");
  return value;
}

}  // namespace

scenario::Scenario with_gradient_chunk(const scenario::Scenario& s, double bytes) {
  scenario::Scenario c = s;
  c.strategies.moe_pipeline.params["allreduce_chunk_bytes"] = bytes;
  c.resolved["strategies"]["moe_pipeline"]["allreduce_chunk_bytes"] = bytes;
  return c;
}

ChunkSearch search_gradient_chunk(const scenario::Scenario& s,
                                  const std::function<double(const scenario::Scenario&)>& iteration_time) {
  ChunkSearch out;
  std::map<double, double> seen;  // S_p -> iteration time
  auto cost = [&](double log2_bytes) {
    const double bytes = std::round(std::exp2(log2_bytes) / 1024) * 1024;
    auto it = seen.find(bytes);
    if (it != seen.end()) return it->second;
    const scenario::Scenario candidate = with_gradient_chunk(s, bytes);
    const double t = in_child([&] { return iteration_time(candidate); });
    spdlog::info("{}: S_p {:.0f} KiB -> iteration {:.4f} s", s.name, bytes / 1024, t);
    out.evaluations.push_back({bytes, t});
    return seen[bytes] = t;
  };
  const double phi = (std::sqrt(5.0) - 1) / 2;
  double a = std::log2(strategy::kMinGradientChunkBytes), b = std::log2(strategy::kMaxGradientChunkBytes);
  double x1 = b - phi * (b - a), x2 = a + phi * (b - a);
  double f1 = cost(x1), f2 = cost(x2);
  while (b - a > 0.25) {
    if (f1 <= f2) {
      b = x2, x2 = x1, f2 = f1;
      x1 = b - phi * (b - a), f1 = cost(x1);
    } else {
      a = x1, x1 = x2, f1 = f2;
      x2 = a + phi * (b - a), f2 = cost(x2);
    }
  }
  out.best_bytes = out.evaluations.front().first;
  double best = out.evaluations.front().second;
  for (const auto& [bytes, t] : out.evaluations)
    if (t < best) best = t, out.best_bytes = bytes;
  return out;
}

nlohmann::json ChunkSearch::to_json() const {
  nlohmann::json tried = nlohmann::json::array();
  for (const auto& [bytes, t] : evaluations) tried.push_back({{"allreduce_chunk_bytes", bytes}, {"iteration_time_s", t}});
  return {{"method", "golden-section over log2(S_p)"},
          {"range_bytes", {strategy::kMinGradientChunkBytes, strategy::kMaxGradientChunkBytes}},
          {"allreduce_chunk_bytes", best_bytes},
          {"evaluations", tried}};
}

}  // namespace llmsim::run
