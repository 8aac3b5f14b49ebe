// trace.json flow arrows, events.csv and the trace selection options (output.trace_ranks, trace_iterations),
// on the shipped default scenario: gpt-1.7b, tp 2, pp 2, dp 4, interleaved-1f1b with v = 2, global batch 64,
// micro-batch 1 (so m = 64 / 4 = 16 micro-batches per pipeline). Megatron's rank order (tp fastest, then dp,
// then pp) puts stage 0 on GPUs 0-7 and stage 1 on GPUs 8-15, so every pipeline message of GPU g goes to GPU
// (g + 8) mod 16 (the same dp replica and tp lane on the other stage).
#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <tuple>

#include "../support/cli.hpp"

namespace llmsim::test {
namespace {

constexpr int kGpus = 16, kStageGpus = 8;
constexpr int kMicroBatches = 64 / 4;
// Each micro-batch crosses pp * v = 4 model chunks: 3 activation sends forward and 3 gradient sends backward,
// on each of the dp * tp = 8 pipelines of GPUs.
constexpr int kSendsPerIteration = kMicroBatches * 3 * 2 * 8;

struct Trace {
  std::vector<json> slices;                  ///< "ph": "X"
  std::vector<json> starts, finishes;        ///< "ph": "s" / "f"
  std::map<int, std::string> process_names;  ///< pid -> name
};

Trace parse_trace(const fs::path& file) {
  Trace t;
  const json doc = json::parse(read_file(file));
  for (const auto& e : doc["traceEvents"]) {
    const std::string ph = e["ph"];
    if (ph == "X") t.slices.push_back(e);
    if (ph == "s") t.starts.push_back(e);
    if (ph == "f") t.finishes.push_back(e);
    if (ph == "M" && e["name"] == "process_name") t.process_names[e["pid"]] = e["args"]["name"];
  }
  return t;
}

bool is_send(const json& slice) { return slice["tid"] == 1 && slice["name"].get<std::string>().rfind("send ", 0) == 0; }

/// A CSV line split into fields ("..." quoting with "" for a quote).
std::vector<std::string> fields(const std::string& line) {
  std::vector<std::string> out(1);
  bool quoted = false;
  for (size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (quoted && c == '"' && i + 1 < line.size() && line[i + 1] == '"') out.back() += line[++i];
    else if (c == '"') quoted = !quoted;
    else if (c == ',' && !quoted) out.emplace_back();
    else out.back() += c;
  }
  return out;
}

/// (pid, tid, name, ts rounded to ns, dur rounded to ns): one slice, comparable across files.
using Slice = std::tuple<int, int, std::string, long long, long long>;
Slice key_of(int pid, int tid, const std::string& name, double ts_us, double dur_us) {
  return {pid, tid, name, std::llround(ts_us * 1e3), std::llround(dur_us * 1e3)};
}
Slice key_of(const json& x) { return key_of(x["pid"], x["tid"], x["name"], x["ts"], x["dur"]); }

class TraceFormats : public Cli {
 protected:
  /// Runs the default scenario with `args` into `out`.
  void run_default(const std::string& out, const std::string& args) {
    const auto r = run("run '" + source("scenarios/default.json") + "' --out " + out + " " + args);
    ASSERT_EQ(r.code, 0) << r.err;
  }
};

TEST_F(TraceFormats, EachPipelineSendHasOneArrowToTheReceivingGpu) {
  run_default("out", "--set training.iterations=1");
  const auto t = parse_trace(dir_ / "out" / "trace.json");
  ASSERT_EQ(t.process_names.size(), size_t(kGpus));
  for (const auto& [pid, name] : t.process_names)
    EXPECT_EQ(name, "GPU " + std::to_string(pid) + " (stage " + std::to_string(pid / kStageGpus) + ")");

  std::map<std::pair<int, double>, std::string> sends;  // (pid, ts) -> name
  std::map<int, std::vector<std::pair<double, double>>> compute;  // pid -> [ts, ts + dur] of its compute track
  for (const auto& x : t.slices) {
    if (is_send(x)) sends[{x["pid"], x["ts"]}] = x["name"];
    if (x["tid"] == 0) compute[x["pid"]].emplace_back(x["ts"], x["ts"].get<double>() + x["dur"].get<double>());
  }
  EXPECT_EQ(sends.size(), size_t(kSendsPerIteration));
  ASSERT_EQ(t.starts.size(), sends.size());
  ASSERT_EQ(t.finishes.size(), sends.size());

  std::map<long long, json> finish_of;
  for (const auto& f : t.finishes) {
    EXPECT_TRUE(finish_of.emplace(f["id"].get<long long>(), f).second) << "two finishes with id " << f["id"];
    EXPECT_EQ(f["bp"], "e");
    EXPECT_EQ(f["tid"], 0);
  }
  std::set<long long> ids;
  for (const auto& s : t.starts) {
    const long long id = s["id"];
    EXPECT_TRUE(ids.insert(id).second) << "two starts with id " << id;
    const int pid = s["pid"];
    // The arrow leaves a send slice of the sending GPU ...
    EXPECT_EQ(s["tid"], 1);
    const auto send = sends.find({pid, s["ts"].get<double>()});
    ASSERT_NE(send, sends.end()) << "flow " << id << " does not start at a send of GPU " << pid;
    EXPECT_EQ(s["name"], send->second);
    EXPECT_EQ(s["cat"], "pp_comm");
    // ... and ends on the GPU of the other stage with the same dp replica and tp lane, not before it left.
    ASSERT_TRUE(finish_of.count(id)) << "flow " << id << " has no finish";
    const auto& f = finish_of[id];
    EXPECT_EQ(f["pid"], (pid + kStageGpus) % kGpus) << s;
    EXPECT_EQ(f["cat"], s["cat"]);
    EXPECT_EQ(f["name"], s["name"]);
    EXPECT_GE(f["ts"].get<double>(), s["ts"].get<double>());
    // ... inside a slice of the receiver's compute track (what "bp": "e" binds it to).
    const double ts = f["ts"];
    const auto& slices = compute[f["pid"]];
    EXPECT_TRUE(std::any_of(slices.begin(), slices.end(), [&](const auto& sl) { return sl.first <= ts && ts <= sl.second; }))
        << "flow " << id << " ends outside any slice of GPU " << f["pid"];
  }
}

TEST_F(TraceFormats, EventsCsvRowsAreTheTraceSlices) {
  run_default("out", "--set training.iterations=1 --set output.events_csv=true");
  const auto t = parse_trace(dir_ / "out" / "trace.json");
  const auto resolved = json::parse(read_file(dir_ / "out" / "scenario.resolved.json"));
  // A pipeline message is one micro-batch's activations (or their gradients) in fp16, split over the tp lanes.
  const double message_bytes = resolved["training"]["seq_len"].get<double>() * resolved["training"]["micro_batch"].get<double>() *
                               resolved["model"]["hidden"].get<double>() * 2 / resolved["parallelism"]["tp"].get<double>();

  const auto rows = lines(read_file(dir_ / "out" / "events.csv"));
  ASSERT_FALSE(rows.empty());
  EXPECT_EQ(rows[0], "rank,stream,iteration,name,category,start_s,end_s,peer,bytes");
  std::multiset<Slice> from_csv, from_trace;
  int p2p = 0;
  for (size_t i = 1; i < rows.size(); ++i) {
    const auto f = fields(rows[i]);
    ASSERT_EQ(f.size(), 9u) << rows[i];
    const int rank = std::stoi(f[0]);
    const double start = std::stod(f[5]), end = std::stod(f[6]);
    from_csv.insert(key_of(rank, std::stoi(f[1]), f[3], start * 1e6, (end - start) * 1e6));
    EXPECT_EQ(f[2], "0") << rows[i];
    if (f[3].rfind("send ", 0) == 0 || f[3].rfind("recv ", 0) == 0) {
      ++p2p;
      EXPECT_EQ(f[4], "pp_comm");
      EXPECT_EQ(std::stoi(f[7]), (rank + kStageGpus) % kGpus) << rows[i];
      EXPECT_DOUBLE_EQ(std::stod(f[8]), message_bytes) << rows[i];
    } else {
      EXPECT_EQ(f[7], "") << rows[i];
    }
  }
  for (const auto& x : t.slices) from_trace.insert(key_of(x));
  EXPECT_EQ(from_csv.size(), t.slices.size());
  EXPECT_TRUE(from_csv == from_trace);
  EXPECT_GE(p2p, kSendsPerIteration);  // every send, and the receives that waited
}

TEST_F(TraceFormats, EventsCsvOfABraidedScheduleGivesEveryMessageItsBytes) {
  // STP sends the activation gradient after B only and receives it in a whole backward: one message, as the
  // engine matches them, so each send and recv row carries the message's bytes (it was an internal error).
  const auto r = run("run '" + source("scenarios/regression/pipeline-stp.json") +
                     "' --out out --set training.iterations=1 --set output.events_csv=true");
  ASSERT_EQ(r.code, 0) << r.err;
  const auto resolved = json::parse(read_file(dir_ / "out" / "scenario.resolved.json"));
  const double tp = resolved["parallelism"]["tp"].get<double>();
  const double split = resolved["training"]["scatter_gather_p2p"].get<bool>() ? tp : 1;
  const double message_bytes = resolved["training"]["seq_len"].get<double>() *
                               resolved["training"]["micro_batch"].get<double>() *
                               resolved["model"]["hidden"].get<double>() * 2 / split;  // fp16
  int p2p = 0;
  const auto rows = lines(read_file(dir_ / "out" / "events.csv"));
  for (size_t i = 1; i < rows.size(); ++i) {
    const auto f = fields(rows[i]);
    if (f[3].rfind("send ", 0) != 0 && f[3].rfind("recv ", 0) != 0) continue;
    ++p2p;
    EXPECT_DOUBLE_EQ(std::stod(f[8]), message_bytes) << rows[i];
  }
  EXPECT_GT(p2p, 0);
}

TEST_F(TraceFormats, IterationWindowAndRankSubsetRestrictTheEventsExactly) {
  // Three identical iterations: the window 1:1 keeps exactly the middle third of each track of the full trace.
  run_default("full", "--set training.iterations=3");
  run_default("part", "--set training.iterations=3 --set output.trace_iterations=1:1 --set output.trace_ranks=0-1,8 "
                      "--set output.events_csv=true");
  const auto full = parse_trace(dir_ / "full" / "trace.json"), part = parse_trace(dir_ / "part" / "trace.json");
  const std::set<int> chosen = {0, 1, 8};

  std::map<std::pair<int, int>, std::vector<Slice>> full_tracks, part_tracks;
  for (const auto& x : full.slices) full_tracks[{x["pid"], x["tid"]}].push_back(key_of(x));
  for (const auto& x : part.slices) part_tracks[{x["pid"], x["tid"]}].push_back(key_of(x));
  std::set<int> pids;
  for (const auto& [pid, name] : part.process_names) pids.insert(pid);
  EXPECT_EQ(pids, chosen);
  size_t expected = 0;
  for (auto& [track, slices] : full_tracks) {
    if (!chosen.count(track.first)) {
      EXPECT_FALSE(part_tracks.count(track)) << "GPU " << track.first << " is not in trace_ranks";
      continue;
    }
    std::sort(slices.begin(), slices.end(), [](const Slice& a, const Slice& b) { return std::get<3>(a) < std::get<3>(b); });
    ASSERT_EQ(slices.size() % 3, 0u) << "track " << track.first << "/" << track.second;
    const size_t n = slices.size() / 3;
    std::vector<Slice> middle(slices.begin() + n, slices.begin() + 2 * n);
    auto got = part_tracks[track];
    std::sort(got.begin(), got.end(), [](const Slice& a, const Slice& b) { return std::get<3>(a) < std::get<3>(b); });
    EXPECT_EQ(std::multiset<Slice>(got.begin(), got.end()), std::multiset<Slice>(middle.begin(), middle.end()))
        << "track " << track.first << "/" << track.second;
    expected += n;
  }
  EXPECT_EQ(part.slices.size(), expected);

  // Arrows only where both GPUs are traced: 0 -> 8 and 8 -> 0 (GPU 1 sends to the untraced GPU 9).
  size_t sends = 0;
  for (const auto& x : part.slices) sends += is_send(x) && x["pid"] != 1;
  EXPECT_EQ(sends, size_t(kSendsPerIteration / 8));  // the sends of one pipeline (GPUs 0 and 8)
  EXPECT_EQ(part.starts.size(), sends);
  EXPECT_EQ(part.finishes.size(), sends);

  const auto rows = lines(read_file(dir_ / "part" / "events.csv"));
  EXPECT_EQ(rows.size(), part.slices.size() + 1);
  for (size_t i = 1; i < rows.size(); ++i) {
    const auto f = fields(rows[i]);
    EXPECT_TRUE(chosen.count(std::stoi(f[0]))) << rows[i];
    EXPECT_EQ(f[2], "1") << rows[i];
  }
}

TEST_F(TraceFormats, BadSelectionsAreInputErrors) {
  const std::string scenario = "run '" + source("scenarios/default.json") + "' --out out --set ";
  expect_input_error(run(scenario + "output.trace_ranks=0-16"), "/output/trace_ranks: rank 16 does not exist");
  expect_input_error(run(scenario + "output.trace_ranks=3-1"), "/output/trace_ranks: \"3-1\"");
  expect_input_error(run(scenario + "output.trace_iterations=1:2"), "/output/trace_iterations: iteration 2 does not exist");
  expect_input_error(run(scenario + "output.trace_iterations=2:1"), "/output/trace_iterations: \"2:1\"");
}

}  // namespace
}  // namespace llmsim::test
