// llmsim command-line front end: parses arguments (CLI11) and calls the library. Exit codes: 0 success,
// 2 bad input (scenario or command line), 130/143 interrupted, 1 a bug in llmsim or a failed sweep point or
// regression (util/error.hpp: one policy for every command).
#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

#include <CLI/CLI.hpp>
#include <filesystem>
#include <iostream>
#include <string>
#include <vector>

#include "llmsim/cli/commands.hpp"
#include "llmsim/cli/schema_command.hpp"
#include "llmsim/collectives/collective.hpp"
#include "llmsim/sweep/command.hpp"
#include "llmsim/regress/command.hpp"
#include "llmsim/util/error.hpp"
#include "llmsim/util/interrupt.hpp"

namespace {

/// Every command's options and its subcommand (set once parsed).
struct Commands {
  llmsim::cli::RunOptions run_opts, validate_opts;
  llmsim::cli::BenchCliOptions bench_opts;
  llmsim::cli::StepTimeOptions step_opts;
  std::string schema_format = "markdown";
  llmsim::regress::RegressOptions regress_opts;
  llmsim::sweep::SweepOptions sweep_opts;
  std::string sweep_dir;
  long sweep_index = 0;
  std::string what;  // list's category
  CLI::App *run = nullptr, *validate = nullptr, *bench = nullptr, *step = nullptr, *schema = nullptr,
           *regress = nullptr, *sweep = nullptr, *sweep_collect = nullptr, *sweep_point = nullptr;
};

/// A whole number from `lo` to `hi` written in decimal digits (leading zeros dropped): CLI11 alone would read "010"
/// as octal 8 and "0x10" as 16, and say "not in range" of 1.5.
CLI::Validator whole_number(long long lo, long long hi) {
  const std::string allowed = "a whole number from " + std::to_string(lo) + " to " + std::to_string(hi);
  return CLI::Validator(
      [lo, hi, allowed](std::string& v) {
        const size_t first = v.find_first_not_of('0');
        const std::string digits = first == std::string::npos ? (v.empty() ? "" : "0") : v.substr(first);
        const bool ok = !digits.empty() && digits.size() <= 18 &&
                        digits.find_first_not_of("0123456789") == std::string::npos &&
                        std::stoll(digits) >= lo && std::stoll(digits) <= hi;
        if (!ok) return v + " is not " + allowed;
        v = digits;
        return std::string();
      },
      allowed);
}

CLI::Validator non_empty(const std::string& what) {
  return CLI::Validator([what](const std::string& v) { return v.empty() ? "an empty " + what : std::string(); },
                        "a non-empty " + what);
}

void add_log_level(CLI::App* cmd, std::string& level) {
  cmd->add_option("--log-level", level, "trace, debug, info, warn, error or off")
      ->check(CLI::IsMember({"trace", "debug", "info", "warn", "error", "off"}));
}

void add_overrides(CLI::App* cmd, std::vector<std::string>& overrides, const std::string& of = "a field") {
  cmd->add_option("--set", overrides, "override " + of + ": json.path=value (repeatable, one per --set)")
      ->allow_extra_args(false)
      ->type_name("PATH=VALUE")
      ->check([](const std::string& v) {  // an option read as the value (the loader checks the rest)
        return v.rfind("-", 0) == 0 ? "expected json.path=value, got the option " + v : std::string();
      });
}

void add_run_and_validate(CLI::App& app, Commands& c) {
  c.run = app.add_subcommand("run", "simulate a scenario and write summary.json, trace.json, scenario.resolved.json");
  c.run->add_option("scenario", c.run_opts.scenario, "scenario JSON file")->required();
  c.run->add_option("--out", c.run_opts.out, "output directory (default results/<scenario name>/)")->check(non_empty("path"));
  add_overrides(c.run, c.run_opts.overrides);
  add_log_level(c.run, c.run_opts.log_level);
  auto& progress = c.run_opts.progress;
  auto* progress_on = c.run->add_flag_callback("--progress", [&progress]() { progress = "on"; },
                                               "show a progress line on stderr (default: for long runs on a terminal)");
  c.run->add_flag_callback("--no-progress", [&progress]() { progress = "off"; }, "never show a progress line")
      ->excludes(progress_on);

  c.validate = app.add_subcommand("validate", "check a scenario and print it resolved, without simulating");
  c.validate->add_option("scenario", c.validate_opts.scenario, "scenario JSON file")->required();
  add_overrides(c.validate, c.validate_opts.overrides);
}

void add_bench(CLI::App& app, Commands& c) {
  auto& o = c.bench_opts;
  auto* bench = c.bench = app.add_subcommand("bench-collective", "nccl-tests-style sweep of one collective on a scenario's cluster");
  bench->add_option("scenario", o.scenario.scenario, "scenario JSON file (its hardware and cluster are used)")->required();
  add_overrides(bench, o.scenario.overrides);
  bench->add_option("--collective", o.collective, "collective")->check(CLI::IsMember(llmsim::collectives::kind_names()));
  bench->add_option("--algorithm", o.algorithm, "algorithm (auto = NCCL-style choice per size)")
      ->check(CLI::IsMember(llmsim::collectives::algorithm_names()));
  bench->add_option("--ranks", o.ranks, "ranks: the first N GPUs (default: all)")->transform(whole_number(1, 1 << 30));
  bench->add_option("--min", o.min, "smallest size per rank, e.g. 1K");
  bench->add_option("--max", o.max, "largest size per rank, e.g. 8G");
  bench->add_option("--factor", o.factor, "size multiplier between steps")
      ->check(CLI::Range(1.01, 1e6))
      ->check([](const std::string& v) { return llmsim::decimal_number(v) ? std::string() : "not a decimal number: " + v; });
  bench->add_option("--window", o.window, "direct algorithms: concurrent peers (0 = all)")
      ->transform(whole_number(0, 1 << 30));
  bench->add_option("--csv", o.csv, "also write the table as CSV to this file")->check(non_empty("file name"));
  add_log_level(bench, o.scenario.log_level);
}

void add_step_time(CLI::App& app, Commands& c) {
  auto& o = c.step_opts;
  auto* step = c.step = app.add_subcommand("step-time", "one serving step of a scenario's replica (prefill or decode), in ms");
  step->add_option("scenario", o.scenario.scenario, "serving scenario JSON file")->required();
  add_overrides(step, o.scenario.overrides);
  auto* prefill = step->add_option("--prefill", o.prefill,
                                   "prompt tokens of one prefill alone, or TOKENSxPROMPTS for several in one step "
                                   "(512x8: eight prompts of 512 tokens)");
  auto* decode = step->add_option("--decode", o.decode, "sequences of one decode step")->transform(whole_number(1, 1 << 20));
  step->add_option("--context", o.context, "tokens in each decoding sequence's KV cache")
      ->transform(whole_number(0, 1 << 24))
      ->needs(decode);
  decode->needs("--context");
  prefill->excludes(decode);
}

void add_schema_and_regress(CLI::App& app, Commands& c) {
  c.schema = app.add_subcommand("schema", "print the scenario reference: every field, section and family member");
  c.schema->add_option("--format", c.schema_format, "markdown (docs/scenario-reference.md) or json-schema (draft 2020-12)")
      ->check(CLI::IsMember({"markdown", "json-schema"}));

  auto& o = c.regress_opts;
  auto* regress = c.regress =
      app.add_subcommand("regress", "run a suite of scenarios and compare their throughput metrics with a baseline (CI)");
  regress->add_option("suite", o.suite, "directory of scenario JSON files")->required();
  regress->add_option("--baseline", o.baseline, "baseline JSON file (scenario -> metric -> value)")->required();
  regress->add_option("--tolerance", o.tolerance, "allowed change in a metric's bad direction, 2% or 0.02 (default: the baseline's)")
      ->check(non_empty("tolerance (give 2% or 0.02)"));
  regress->add_flag("--update-baseline", o.update, "rewrite the baseline with the current values");
  add_overrides(regress, o.overrides, "a field of every scenario");
  regress->add_option("-j,--jobs", o.jobs, "scenarios run at once")->transform(whole_number(1, 256));
}

void add_sweep(CLI::App& app, Commands& c) {
  auto& o = c.sweep_opts;
  auto* sweep = c.sweep = app.add_subcommand("sweep", "run a scenario over a grid of --set values (locally or as a SLURM "
                                                      "job array) into DIR/results.csv; rerun to resume");
  sweep->add_option("scenario", o.scenario, "scenario JSON file");
  sweep->add_option("--grid", o.grid, "key=v1,v2,...: crossed with the other axes (repeatable)")->allow_extra_args(false);
  sweep->add_option("--zip", o.zip, "key=v1,v2,...: zipped with the other --zip lists (repeatable)")->allow_extra_args(false);
  sweep->add_option("--sweep-file", o.sweep_file, "JSON {\"grid\": {k: [..]}, \"zip\": {k: [..]}, \"set\": {k: v}}");
  add_overrides(sweep, o.sets, "a field of every point");
  sweep->add_option("-j,--jobs", o.jobs, "runs at once (local, default 1) or SLURM tasks at once (default: no limit)")
      ->transform(whole_number(1, 4096));
  sweep->add_option("--out", o.out, "the sweep's directory (points.jsonl, runs/, results.csv)");
  sweep->add_option("--backend", o.backend, "local or slurm")->check(CLI::IsMember({"local", "slurm"}));
  sweep->add_flag("--wait", o.wait, "slurm: wait for the job array and collect the results");
  sweep->add_option("--slurm-option", o.slurm_options,
                    "slurm: an extra #SBATCH option, e.g. --slurm-option=--partition=gpu (repeatable)")
      ->allow_extra_args(false);
  c.sweep_collect = sweep->add_subcommand("collect", "write DIR/results.csv and results.jsonl from the finished points");
  c.sweep_collect->add_option("dir", c.sweep_dir, "the sweep's directory")->required();
  c.sweep_point = sweep->add_subcommand("run-point", "run one point of a planned sweep (what a SLURM array task runs)");
  c.sweep_point->group("");
  c.sweep_point->add_option("dir", c.sweep_dir, "the sweep's directory")->required();
  c.sweep_point->add_option("index", c.sweep_index, "the point's index in points.jsonl")
      ->transform(whole_number(0, 1 << 30))
      ->required();
  sweep->require_subcommand(0, 1);
}

const std::vector<std::string> kListCategories = {"hardware", "models",  "topologies", "software", "engines",
                                                  "strategies", "routing", "faults",  "serving"};

/// "hardware, models, ... or serving".
std::string list_categories() {
  std::string text;
  for (size_t i = 0; i < kListCategories.size(); ++i)
    text += (i == 0 ? "" : i + 1 == kListCategories.size() ? " or " : ", ") + kListCategories[i];
  return text;
}

void add_list(CLI::App& app, Commands& c) {
  app.add_subcommand("list", "list presets and registered strategies")
      ->add_option("category", c.what, list_categories())
      ->check(CLI::IsMember(kListCategories));
}

/// One line for a command line CLI11 rejects; a first word that is no command is named with the commands.
int parse_error(CLI::App& app, const CLI::ParseError& e, int argc, char** argv) {
  std::string commands;
  bool known = false;
  for (const auto* sub : app.get_subcommands([](const CLI::App*) { return true; })) {
    commands += (commands.empty() ? "" : ", ") + sub->get_name();
    known = known || (argc > 1 && sub->get_name() == argv[1]);
  }
  const bool unknown = argc > 1 && argv[1][0] != '-' && !known;
  const std::string word = argc > 1 && argv[1][0] ? llmsim::escape_control(argv[1]) : "''";
  std::cerr << "error: "
            << (unknown ? word + ": unknown command (one of: " + commands + ")"
                        : llmsim::escape_control(e.what()))
            << " (see llmsim --help)\n";
  return 2;
}

int dispatch(const Commands& c) {
  if (*c.run) return llmsim::cli::run_command(c.run_opts);
  if (*c.validate) return llmsim::cli::validate_command(c.validate_opts);
  if (*c.bench) return llmsim::cli::bench_command(c.bench_opts);
  if (*c.step) return llmsim::cli::step_time_command(c.step_opts, std::cout);
  if (*c.schema) return llmsim::cli::schema_command(c.schema_format, std::cout);
  if (*c.regress)
    return llmsim::regress::regress_command(c.regress_opts, std::filesystem::read_symlink("/proc/self/exe").string(),
                                            std::cout);
  if (*c.sweep_collect) return llmsim::sweep::sweep_collect_command(c.sweep_dir, std::cout);
  if (*c.sweep_point) return llmsim::sweep::sweep_run_point_command(c.sweep_dir, c.sweep_index);
  if (*c.sweep) return llmsim::sweep::sweep_command(c.sweep_opts, std::cout);
  // [dispatch: each command's call above this line]
  if (c.what.empty()) throw llmsim::ScenarioError("list", "give a category (" + list_categories() + ")");
  return llmsim::cli::list_command(c.what, std::cout);
}

}  // namespace

int main(int argc, char** argv) {
  llmsim::util::install_interrupt_handler();
  spdlog::set_default_logger(spdlog::stderr_color_st("llmsim"));
  spdlog::set_pattern("[%l] %v");
  CLI::App app{"llmsim: discrete-event simulator of distributed LLM training and serving"};
  app.set_version_flag("--version", std::string("llmsim ") + LLMSIM_VERSION);
  app.require_subcommand(1);
  Commands c;
  add_run_and_validate(app, c);
  add_bench(app, c);
  add_step_time(app, c);
  add_schema_and_regress(app, c);
  add_sweep(app, c);
  // [subcommands: each command's add_ function above this line]
  add_list(app, c);

  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::Success& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    return parse_error(app, e, argc, argv);
  }
  int code = 0;
  try {
    code = dispatch(c);
  } catch (...) {
    code = llmsim::exit_code_for(std::current_exception(), std::cerr);
  }
  return llmsim::cli::flushed_stdout(code, std::cerr);
}
