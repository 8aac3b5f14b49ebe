#include "llmsim/cli/commands.hpp"

#include <spdlog/spdlog.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <iostream>

#include "llmsim/bench/collective_bench.hpp"
#include "llmsim/engine/simulation.hpp"
#include "llmsim/run/preflight.hpp"
#include "llmsim/util/limits.hpp"
#include "llmsim/util/progress.hpp"
#include "llmsim/platform/topology.hpp"
#include "llmsim/report/output_dir.hpp"
#include "llmsim/report/fault_report.hpp"
#include "llmsim/report/summary.hpp"
#include "llmsim/util/error.hpp"
#include "llmsim/run/training_run.hpp"
#include "llmsim/run/serving_run.hpp"
#include "llmsim/report/serving_report.hpp"
#include "llmsim/serving/router.hpp"
#include "llmsim/serving/scheduler.hpp"
#include "llmsim/serving/scheduler.hpp"
#include "llmsim/serving/step_model.hpp"
#include "llmsim/serving/workload.hpp"
#include "llmsim/scenario/families.hpp"
#include "llmsim/scenario/loader.hpp"
#include "llmsim/faults/failure_process.hpp"
#include "llmsim/moe/routing.hpp"
#include "llmsim/strategy/fault_tolerance.hpp"
#include "llmsim/strategy/expert_placement.hpp"
#include "llmsim/strategy/moe_pipeline.hpp"
#include "llmsim/strategy/pipeline_schedule.hpp"

namespace llmsim::cli {

int run_command(const RunOptions& o) {
  spdlog::set_level(spdlog::level::from_str(o.log_level));
  const auto s = scenario::load_scenario(o.scenario, o.overrides);
  const auto checked = run::preflight(s);
  const std::string out = o.out.empty() ? "results/" + s.name : o.out;
  // Children (the S_p search, capacity probes, a fault run's templates) count in processes of their own.
  const bool forks = s.faults.enabled() || s.serving.capacity_search ||
                     (s.kind != "serving" && strategy::make_moe_pipeline(s)->searches_gradient_chunk());
  const double total = s.kind == "serving" ? checked.estimate.requests : checked.ops;
  const bool long_run = !forks && total > limits::kProgressOps;
  const util::ProgressLine progress(o.progress == "on" || (o.progress == "auto" && long_run && ::isatty(2)),
                                    s.kind == "serving" ? "requests" : "ops", total);
  if (s.kind == "serving") {
    std::cout << report::serving_summary_table(run::run_serving(s, out)) << "  outputs in " << out << "/\n";
    return 0;
  }
  const auto summary = run::run_training(s, out);
  std::cout << (summary.contains("faults") ? report::fault_summary_table(summary) : report::summary_table(summary))
            << "  outputs in " << out << "/\n";
  return 0;
}

namespace {
/// `f()`; an error it raises (about a file) is re-raised at the command-line `option`, naming the file.
template <class F>
auto at_option(const std::string& option, F f) {
  try {
    return f();
  } catch (const ScenarioError& e) {
    throw ScenarioError(option, e.what());
  }
}

/// "TOKENS" or "TOKENSxPROMPTS" (positive integers, at most 2^24 tokens and 2^16 prompts).
std::pair<int, int> prefill_batch(const std::string& text) {
  const auto bad = [&]() {
    return ScenarioError("--prefill", "\"" + text + "\" is not TOKENS or TOKENSxPROMPTS (e.g. 512 or 512x8; positive "
                                      "integers, at most 16777216 tokens and 65536 prompts)");
  };
  const auto x = text.find('x');
  const std::string tokens = text.substr(0, x), prompts = x == std::string::npos ? "1" : text.substr(x + 1);
  const auto digits = [](const std::string& t) {
    return !t.empty() && t.size() <= 8 && t.find_first_not_of("0123456789") == std::string::npos;
  };
  if (!digits(tokens) || !digits(prompts)) throw bad();
  const long n = std::stol(tokens), p = std::stol(prompts);
  if (n < 1 || n > (1L << 24) || p < 1 || p > (1L << 16)) throw bad();
  return {static_cast<int>(n), static_cast<int>(p)};
}


/// A step over `sequences` sequences of `tokens` tokens each (prompts; or contexts, each with the token it decodes)
/// must fit the model's context and the replica's KV blocks (serving/kv_cache.hpp), as a run's admission requires.
/// Errors name `option` (the length) or, when one sequence fits the KV blocks, `batch_option`.
void check_step_fits(const scenario::Scenario& s, const std::string& option, const std::string& batch_option,
                     long tokens, long sequences, bool decoding) {
  // A prefill emits the first output token too: a run rejects a prompt of max_seq_len tokens or more (vLLM's rule).
  const long held = tokens + 1, limit = s.model.max_seq_len;
  if (held > limit)
    throw ScenarioError(option, std::to_string(tokens) +
                                    (decoding ? " tokens of context and the one decoded" : " tokens of prompt and the "
                                                                                         "first one generated") +
                                    " exceed model.max_seq_len " + std::to_string(limit) + " (at most " +
                                    std::to_string(limit - 1) + ")");
  const serving::KvGeometry kv = serving::replica_kv(s);
  const long one = serving::KvBlocks(kv.blocks, kv.block_size).blocks_for(held), blocks = sequences * one;
  if (blocks > kv.blocks)
    throw ScenarioError(one > kv.blocks ? option : batch_option, std::to_string(sequences) + " sequences of " + std::to_string(held) + " tokens (with the one each " + (decoding ? "decodes" : "emits") + ") need " +
                                    std::to_string(blocks) + " KV blocks; the replica holds " + std::to_string(kv.blocks) +
                                    " (of " + std::to_string(kv.block_size) + " tokens)");
}
}  // namespace

namespace {
/// Flushes standard output; whether all of it was written.
bool stdout_written() {
  std::cout.flush();
  return std::fflush(stdout) == 0 && !std::ferror(stdout) && std::cout;
}
}  // namespace

int flushed_stdout(int code, std::ostream& err) {
  if (stdout_written()) return code;
  err << "error: standard output: cannot write (" << std::strerror(errno) << ")\n";
  return 2;
}

int step_time_command(const StepTimeOptions& o, std::ostream& out) {
  const auto s = scenario::load_scenario(o.scenario.scenario, o.scenario.overrides);
  if (s.kind != "serving") throw ScenarioError("/kind", "step-time needs a serving scenario (\"kind\": \"serving\")");
  if (!o.prefill.empty() == (o.decode > 0)) throw ScenarioError("step-time", "give --prefill TOKENS or --decode BATCH");
  const serving::StepModel m(s);
  double t = 0;
  if (o.prefill.empty()) {
    check_step_fits(s, "--context", "--decode", o.context, o.decode, true);
    t = m.decode_time(o.decode, o.context);
  } else {
    const auto [tokens, prompts] = prefill_batch(o.prefill);
    check_step_fits(s, "--prefill", "--prefill", tokens, prompts, false);
    t = m.prefill_time(tokens, prompts);
  }
  out << nlohmann::json{{"time_ms", 1e3 * t}}.dump() << "\n";
  return 0;
}

int bench_command(const BenchCliOptions& o) {
  spdlog::set_level(spdlog::level::from_str(o.scenario.log_level));
  const auto s = scenario::load_scenario(o.scenario.scenario, o.scenario.overrides);
  bench::BenchOptions b;
  b.kind = collectives::kind_from_name(o.collective);
  b.algorithm = collectives::algorithm_from_name(o.algorithm);
  b.ranks = o.ranks;
  b.min_bytes = bench::parse_size(o.min, "--min");
  b.max_bytes = bench::parse_size(o.max, "--max");
  b.factor = o.factor;
  b.window = o.window;
  if (b.window > 0 && b.algorithm != collectives::Algorithm::Direct && b.algorithm != collectives::Algorithm::Auto)
    throw ScenarioError("--window", std::string("the ") + collectives::algorithm_name(b.algorithm) +
                                        " algorithm has no peers to limit (only direct, or auto when it picks direct)");
  if (b.max_bytes < b.min_bytes) throw ScenarioError("--max", "must be at least --min");
  if (b.max_bytes > 1099511627776.0) throw ScenarioError("--max", "at most 1024G per rank");
  if (s.network.model == "ns-3" && b.max_bytes > 65536)
    throw ScenarioError("--max", "the ns-3 model of Debian's SimGrid 3.32 aborts on larger transfers: at most 64K with ns-3");
  if (!o.csv.empty()) {  // fail before the run, not after it
    const std::filesystem::path csv(o.csv);
    const auto dir = csv.parent_path().empty() ? std::filesystem::path(".") : csv.parent_path();
    std::error_code ec;  // a loop of links is neither: replaced_file names it
    if (std::filesystem::is_directory(csv, ec) || !std::filesystem::is_directory(dir, ec))
      throw ScenarioError("--csv", o.csv + " is a directory or its folder does not exist");
    // The table replaces a regular file only (report::replaced_file), never the scenario.
    const auto replaced = at_option("--csv", [&] { return report::replaced_file(o.csv); });
    if (std::filesystem::exists(replaced, ec) && std::filesystem::equivalent(replaced, o.scenario.scenario, ec))
      throw ScenarioError("--csv", o.csv + " is the scenario itself");
  }
  const auto rows = bench::bench_collective(s, b);
  std::cout << bench::bench_table(rows, b, b.ranks > 0 ? b.ranks : s.cluster.total_gpus());
  if (!o.csv.empty()) {
    at_option("--csv", [&] { report::write_atomically(o.csv, bench::bench_csv(rows)); });
  }
  return 0;
}

int validate_command(const RunOptions& o) {
  const auto s = scenario::load_scenario(o.scenario, o.overrides);
  const auto checked = run::preflight(s);
  engine::check_platform(s);  // validate never simulates after it
  std::cout << s.resolved.dump(2) << "\n";
  if (!stdout_written()) return 2;  // not "ok": main reports the failed write
  std::cerr << "ok: " << s.name << " (tp " << s.parallelism.tp << ", pp " << s.parallelism.pp << ", dp "
            << s.parallelism.dp << (s.parallelism.cp > 1 ? ", cp " + std::to_string(s.parallelism.cp) : "")
            << (s.parallelism.ep > 1 ? ", ep " + std::to_string(s.parallelism.ep) : "") << "; " << checked.describe()
            << ")\n";
  return 0;
}

namespace {
/// Every registered member of a family with its description and parameter table.
void list_family(const scenario::Family& fam, std::ostream& out) {
  out << fam.listing.heading << ":\n";
  for (const auto& m : fam.members()) {
    out << "  " << m.name << " - " << m.description << "\n";
    for (const auto& f : m.params)
      out << "      " << f.key << ": " << scenario::describe_allowed(f)
          << (f.default_value ? ", default " + scenario::dump_default(f) : "") << " - " << f.help << "\n";
  }
}
}  // namespace

/// The presets of configs/<what>/ (none for strategies, routing, ...), then the families listed under `what`.
int list_command(const std::string& what, std::ostream& out) {
  for (const auto& name : scenario::list_presets(what)) {
    const auto j = scenario::load_preset(what, name, "configs/" + what);
    std::string desc = j.value("description", "");
    desc = desc.substr(0, desc.find(" Notes:"));
    if (desc.size() > 100) desc = desc.substr(0, desc.rfind(' ', 100)) + " ...";
    out << "  " << name << " - " << desc << "\n";
  }
  auto listed = scenario::families();
  std::stable_sort(listed.begin(), listed.end(), [](const auto& a, const auto& b) { return a.listing.order < b.listing.order; });
  for (const auto& fam : listed)
    if (fam.listing.topic == what) list_family(fam, out);
  return 0;
}

}  // namespace llmsim::cli
