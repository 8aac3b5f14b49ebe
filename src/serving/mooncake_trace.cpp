// The mooncake workload (serving/workload.hpp): a Mooncake-style JSONL trace (Qin et al., "Mooncake: A
// KVCache-centric Disaggregated Architecture for LLM Serving", FAST 2025; kvcache-ai/Mooncake
// FAST25-release/traces), one request per line:
//   {"timestamp": 3000, "input_length": 6324, "output_length": 548, "hash_ids": [0, 415, 416, ...]}
// timestamp [ms] (arrivals are relative to the first line's), input_length >= 1, output_length >= 0 (0 is read
// as 1: the first token), hash_ids one non-negative integer per block of block_tokens prompt tokens, i.e.
// exactly ceil(input_length / block_tokens) of them (equal ids = equal prefix blocks). No other key.
#include <algorithm>
#include <climits>

#include "limited_source.hpp"
#include "llmsim/scenario/json_text.hpp"
#include "llmsim/util/error.hpp"
#include "trace_file.hpp"

namespace llmsim::serving {
namespace {

const std::vector<std::string> kKeys = {"timestamp", "input_length", "output_length", "hash_ids"};

/// `j[key]` as an integer in [min, max], else the line fails.
long long integer(const TraceFile& in, const nlohmann::json& j, const std::string& key, long long min, long long max) {
  const auto& v = j.at(key);
  const bool fits = v.is_number_integer() && (!v.is_number_unsigned() || v.get<unsigned long long>() <= LLONG_MAX);
  if (!fits || v.get<long long>() < min || v.get<long long>() > max)
    in.fail(key + " is " + v.dump() + ", expected an integer from " + std::to_string(min) + " to " + std::to_string(max));
  return v.get<long long>();
}

Request read_line(const TraceFile& in, int block_tokens) {
  nlohmann::json j;
  try {
    j = scenario::parse_json_text(in.line(), "the line");
  } catch (const ScenarioError& e) {
    in.fail(e.what());
  }
  if (!j.is_object()) in.fail("expected a JSON object with timestamp, input_length, output_length and hash_ids");
  for (const auto& key : kKeys)
    if (!j.contains(key)) in.fail("no " + key + " (expected timestamp, input_length, output_length and hash_ids)");
  for (const auto& [key, value] : j.items())
    if (std::find(kKeys.begin(), kKeys.end(), key) == kKeys.end())
      in.fail("unknown key \"" + key + "\" (expected timestamp, input_length, output_length and hash_ids)");
  const auto& t = j.at("timestamp");
  if (!t.is_number() || t.get<double>() < 0) in.fail("timestamp is " + t.dump() + ", expected a number of ms >= 0");
  Request r;
  r.arrival = t.get<double>();  // [ms] until read_mooncake makes it relative, in seconds
  r.prompt_tokens = static_cast<int>(integer(in, j, "input_length", 1, INT_MAX));
  r.output_tokens = std::max(1, static_cast<int>(integer(in, j, "output_length", 0, INT_MAX)));
  const auto& ids = j.at("hash_ids");
  if (!ids.is_array()) in.fail("hash_ids is " + ids.dump() + ", expected an array of integers >= 0");
  for (const auto& id : ids) {
    if (!id.is_number_unsigned()) in.fail("hash_ids has " + id.dump() + ", expected integers >= 0");
    r.block_hashes.push_back(id.get<std::uint64_t>());
  }
  const long long blocks = (r.prompt_tokens + static_cast<long long>(block_tokens) - 1) / block_tokens;
  if (static_cast<long long>(r.block_hashes.size()) != blocks)
    in.fail(std::to_string(r.block_hashes.size()) + " hash_ids for input_length " + std::to_string(r.prompt_tokens) +
            ", expected ceil(input_length / block_tokens " + std::to_string(block_tokens) + ") = " +
            std::to_string(blocks) + " (is block_tokens the trace's block size?)");
  return r;
}

std::vector<Request> read_mooncake(const std::string& file, int block_tokens) {
  TraceFile in(file, "/serving/workload/file");
  std::vector<Request> out;
  while (in.next()) {
    Request r = read_line(in, block_tokens);
    if (!out.empty() && r.arrival < out.back().arrival)
      in.fail("timestamp is before the previous request's (out of order)");
    out.push_back(std::move(r));
  }
  const double first = out.empty() ? 0 : out.front().arrival;
  for (auto& r : out) r.arrival = (r.arrival - first) / 1e3;
  return out;
}

LLMSIM_REGISTER(WorkloadSource, "mooncake",
                "replay of a Mooncake-style JSONL trace (FAST 2025): arrivals, lengths and prefix block hashes",
                (scenario::FieldList{
                    scenario::Field::string("file", "JSONL trace (timestamp [ms], input_length, output_length, "
                                                    "hash_ids per line), relative to the scenario file; an output_length "
                                                    "of 0 is served as 1 token (the prefill emits the first)"),
                    scenario::Field::integer("block_tokens", "prompt tokens per hash_ids entry (Mooncake: 512)")
                        .at_least(1)
                        .with_default(512)}),
                [](const scenario::Params& p, const scenario::Scenario& s) {
                  return std::make_unique<Replay>(
                      read_mooncake(resolve_path(p.text("file"), s.source_dir), p.integer("block_tokens")));
                });

}  // namespace
}  // namespace llmsim::serving
