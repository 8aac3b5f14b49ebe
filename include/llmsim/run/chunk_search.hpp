#pragma once
// FlowMoE's S_p tuning (strategy/moe_pipeline.hpp, "allreduce_chunk_bytes": "auto"): a golden-section search
// of the iteration time over log2(S_p) in [128 KiB, 16 MiB] — the interval of FlowMoE's Bayesian optimisation
// (ZJU-CNLAB/FlowMoE dist_train/train_w_FlowMoE_BO_V2.py) — stopping when the bracket is narrower than a
// quarter octave (9 simulations). Candidates are rounded to whole KiB, as FlowMoE does. Golden section assumes
// one minimum in the interval; with several it returns a local one.
// Each candidate is simulated in a child process: SimGrid's engine can run once per process.
#include <functional>
#include <nlohmann/json.hpp>

#include "llmsim/scenario/scenario.hpp"

namespace llmsim::run {

struct ChunkSearch {
  double best_bytes = 0;                                  ///< S_p with the shortest iteration [bytes]
  std::vector<std::pair<double, double>> evaluations;     ///< (S_p [bytes], iteration [s]) in search order
  nlohmann::json to_json() const;
};

/// `iteration_time(s)` simulates a copy of `s` whose strategies.moe_pipeline.allreduce_chunk_bytes is a number
/// and returns its iteration time [s] (infinity when it cannot run, e.g. out of memory).
ChunkSearch search_gradient_chunk(const scenario::Scenario& s,
                                  const std::function<double(const scenario::Scenario&)>& iteration_time);

/// `s` with S_p = `bytes` (in its strategy parameters and its resolved JSON).
scenario::Scenario with_gradient_chunk(const scenario::Scenario& s, double bytes);

}  // namespace llmsim::run
