#pragma once
// MoE outputs of a training run (moe/traffic.hpp definitions), for one micro-batch of each expert-parallel
// rank:
//   summary.json "moe": c_t (mean distinct destination devices per token, over layers) and per layer,
//     imbalance (most loaded rank's (token, expert) pairs over the mean) mean, max and per layer,
//     dropped_fraction (pairs dropped by capacity), per_device_tokens and per_expert_tokens (means over layers),
//     all_to_all_bytes_per_iteration (bytes between different ranks, every exchange, micro-batch and group)
//   moe_load.csv: layer, device, expert, tokens — one row per expert replica
//   moe_traffic.csv: layer, src, dst, token_copies — the dispatch matrix (combine is its transpose)
#include <nlohmann/json.hpp>
#include <string>

#include "llmsim/scenario/scenario.hpp"
#include "llmsim/workload/moe_plan.hpp"

namespace llmsim::report {

nlohmann::json moe_summary(const scenario::Scenario& s, const workload::MoePlan& plan, int micro_batches);
std::string moe_load_csv(const workload::MoePlan& plan);
std::string moe_traffic_csv(const workload::MoePlan& plan);

}  // namespace llmsim::report
