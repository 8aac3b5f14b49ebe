// llmsim command-line front end: parses arguments (CLI11) and calls the library. Exit codes: 0 success,
// 2 bad input (scenario or command line), 130/143 interrupted, 1 a bug in llmsim or a failed sweep point or
// regression (util/error.hpp: one policy for every command).
#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

#include <CLI/CLI.hpp>
#include <filesystem>
#include <iostream>

#include "llmsim/cli/commands.hpp"
#include "llmsim/cli/schema_command.hpp"
#include "llmsim/collectives/collective.hpp"
#include "llmsim/sweep/command.hpp"
#include "llmsim/regress/command.hpp"
#include "llmsim/util/error.hpp"
#include "llmsim/util/interrupt.hpp"

int main(int argc, char** argv) {
  llmsim::util::install_interrupt_handler();
  spdlog::set_default_logger(spdlog::stderr_color_st("llmsim"));
  spdlog::set_pattern("[%l] %v");
  CLI::App app{"llmsim: discrete-event simulator of distributed LLM training and serving"};
  app.set_version_flag("--version", std::string("llmsim ") + LLMSIM_VERSION);
  app.require_subcommand(1);

  llmsim::cli::RunOptions run_opts;
  auto* run = app.add_subcommand("run", "simulate a scenario and write summary.json, trace.json, scenario.resolved.json");
  run->add_option("scenario", run_opts.scenario, "scenario JSON file")->required();
  run->add_option("--out", run_opts.out, "output directory (default results/<scenario name>/)")
      ->check(CLI::Validator([](const std::string& v) { return v.empty() ? std::string("an empty path") : std::string(); },
                             "a non-empty path"));
  run->add_option("--set", run_opts.overrides, "override a field: json.path=value (repeatable)");
  run->add_option("--log-level", run_opts.log_level, "trace, debug, info, warn, error or off")
      ->check(CLI::IsMember({"trace", "debug", "info", "warn", "error", "off"}));
  auto* progress_on = run->add_flag_callback("--progress", [&run_opts]() { run_opts.progress = "on"; },
                                             "show a progress line on stderr (default: for long runs on a terminal)");
  run->add_flag_callback("--no-progress", [&run_opts]() { run_opts.progress = "off"; }, "never show a progress line")
      ->excludes(progress_on);

  llmsim::cli::RunOptions validate_opts;
  auto* validate = app.add_subcommand("validate", "check a scenario and print it resolved, without simulating");
  validate->add_option("scenario", validate_opts.scenario, "scenario JSON file")->required();
  validate->add_option("--set", validate_opts.overrides, "override a field: json.path=value (repeatable)");

  llmsim::cli::BenchCliOptions bench_opts;
  auto* bench = app.add_subcommand("bench-collective", "nccl-tests-style sweep of one collective on a scenario's cluster");
  bench->add_option("scenario", bench_opts.scenario.scenario, "scenario JSON file (its hardware and cluster are used)")
      ->required();
  bench->add_option("--set", bench_opts.scenario.overrides, "override a field: json.path=value (repeatable)");
  bench->add_option("--collective", bench_opts.collective, "collective")
      ->check(CLI::IsMember(llmsim::collectives::kind_names()));
  bench->add_option("--algorithm", bench_opts.algorithm, "algorithm (auto = NCCL-style choice per size)")
      ->check(CLI::IsMember(llmsim::collectives::algorithm_names()));
  bench->add_option("--ranks", bench_opts.ranks, "ranks: the first N GPUs (default: all)")->check(CLI::Range(1, 1 << 30));
  bench->add_option("--min", bench_opts.min, "smallest size per rank, e.g. 1K");
  bench->add_option("--max", bench_opts.max, "largest size per rank, e.g. 8G");
  bench->add_option("--factor", bench_opts.factor, "size multiplier between steps")
      ->check(CLI::Range(1.01, 1e6))
      ->check([](const std::string& v) { return llmsim::decimal_number(v) ? std::string() : "not a decimal number: " + v; });
  bench->add_option("--window", bench_opts.window, "direct algorithms: concurrent peers (0 = all)")->check(CLI::NonNegativeNumber);
  bench->add_option("--csv", bench_opts.csv, "also write the table as CSV to this file")
      ->check([](const std::string& v) { return v.empty() ? std::string("an empty file name") : std::string(); });
  bench->add_option("--log-level", bench_opts.scenario.log_level, "trace, debug, info, warn, error or off")
      ->check(CLI::IsMember({"trace", "debug", "info", "warn", "error", "off"}));

  llmsim::cli::StepTimeOptions step_opts;
  auto* step = app.add_subcommand("step-time", "one serving step of a scenario's replica (prefill or decode), in ms");
  step->add_option("scenario", step_opts.scenario.scenario, "serving scenario JSON file")->required();
  step->add_option("--set", step_opts.scenario.overrides, "override a field: json.path=value (repeatable)");
  auto* prefill = step->add_option("--prefill", step_opts.prefill,
                                   "prompt tokens of one prefill alone, or TOKENSxPROMPTS for several in one step "
                                   "(512x8: eight prompts of 512 tokens)");
  auto* decode = step->add_option("--decode", step_opts.decode, "sequences of one decode step")->check(CLI::Range(1, 1 << 20));
  step->add_option("--context", step_opts.context, "tokens in each decoding sequence's KV cache")
      ->check(CLI::Range(0, 1 << 24))
      ->needs(decode);
  decode->needs("--context");
  prefill->excludes(decode);

  std::string schema_format = "markdown";
  auto* schema = app.add_subcommand("schema", "print the scenario reference: every field, section and family member");
  schema->add_option("--format", schema_format, "markdown (docs/scenario-reference.md) or json-schema (draft 2020-12)")
      ->check(CLI::IsMember({"markdown", "json-schema"}));

  llmsim::regress::RegressOptions regress_opts;
  auto* regress =
      app.add_subcommand("regress", "run a suite of scenarios and compare their throughput metrics with a baseline (CI)");
  regress->add_option("suite", regress_opts.suite, "directory of scenario JSON files")->required();
  regress->add_option("--baseline", regress_opts.baseline, "baseline JSON file (scenario -> metric -> value)")->required();
  regress->add_option("--tolerance", regress_opts.tolerance,
                      "allowed change in a metric's bad direction, 2% or 0.02 (default: the baseline's)")
      ->check([](const std::string& v) { return v.empty() ? std::string("an empty tolerance (give 2% or 0.02)") : std::string(); });
  regress->add_flag("--update-baseline", regress_opts.update, "rewrite the baseline with the current values");
  regress->add_option("--set", regress_opts.overrides, "override a field of every scenario: json.path=value (repeatable)")
      ->allow_extra_args(false);
  regress->add_option("-j,--jobs", regress_opts.jobs, "scenarios run at once")->check(CLI::Range(1, 256));

  llmsim::sweep::SweepOptions sweep_opts;
  std::string sweep_dir;
  long sweep_index = 0;
  auto* sweep = app.add_subcommand("sweep", "run a scenario over a grid of --set values (locally or as a SLURM job "
                                            "array) into DIR/results.csv; rerun to resume");
  sweep->add_option("scenario", sweep_opts.scenario, "scenario JSON file");
  sweep->add_option("--grid", sweep_opts.grid, "key=v1,v2,...: crossed with the other axes (repeatable)")
      ->allow_extra_args(false);
  sweep->add_option("--zip", sweep_opts.zip, "key=v1,v2,...: zipped with the other --zip lists (repeatable)")
      ->allow_extra_args(false);
  sweep->add_option("--sweep-file", sweep_opts.sweep_file,
                    "JSON {\"grid\": {k: [..]}, \"zip\": {k: [..]}, \"set\": {k: v}}");
  sweep->add_option("--set", sweep_opts.sets, "override a field of every point: json.path=value (repeatable)")
      ->allow_extra_args(false);
  sweep->add_option("-j,--jobs", sweep_opts.jobs,
                    "runs at once (local, default 1) or SLURM tasks at once (default: no limit)")
      ->check(CLI::Range(1, 4096));
  sweep->add_option("--out", sweep_opts.out, "the sweep's directory (points.jsonl, runs/, results.csv)");
  sweep->add_option("--backend", sweep_opts.backend, "local or slurm")->check(CLI::IsMember({"local", "slurm"}));
  sweep->add_flag("--wait", sweep_opts.wait, "slurm: wait for the job array and collect the results");
  sweep->add_option("--slurm-option", sweep_opts.slurm_options,
                    "slurm: an extra #SBATCH option, e.g. --slurm-option=--partition=gpu (repeatable)")
      ->allow_extra_args(false);
  auto* sweep_collect =
      sweep->add_subcommand("collect", "write DIR/results.csv and results.jsonl from the finished points");
  sweep_collect->add_option("dir", sweep_dir, "the sweep's directory")->required();
  auto* sweep_point =
      sweep->add_subcommand("run-point", "run one point of a planned sweep (what a SLURM array task runs)");
  sweep_point->group("");
  sweep_point->add_option("dir", sweep_dir, "the sweep's directory")->required();
  sweep_point->add_option("index", sweep_index, "the point's index in points.jsonl")->required();
  sweep->require_subcommand(0, 1);

  // [subcommands: each command's options above this line]
  std::string what;
  auto* list = app.add_subcommand("list", "list presets and registered strategies");
  list->add_option("category", what, "hardware, models, topologies, strategies, routing, faults or serving")
      ->required()
      ->check(CLI::IsMember({"hardware", "models", "topologies", "strategies", "routing", "faults", "serving"}));

  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::Success& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    std::string commands;  // a first word that is no command: name it and the commands
    bool known = false;
    for (const auto* sub : app.get_subcommands([](const CLI::App*) { return true; })) {
      commands += (commands.empty() ? "" : ", ") + sub->get_name();
      known = known || (argc > 1 && sub->get_name() == argv[1]);
    }
    const bool unknown = argc > 1 && argv[1][0] != '-' && !known;
    std::cerr << "error: "
              << (unknown ? llmsim::escape_control(argv[1]) + ": unknown command (one of: " + commands + ")"
                          : llmsim::escape_control(e.what()))
              << " (see llmsim --help)\n";
    return 2;
  }
  int code = 0;
  try {
    code = [&] {
      if (*run) return llmsim::cli::run_command(run_opts);
      if (*validate) return llmsim::cli::validate_command(validate_opts);
      if (*bench) return llmsim::cli::bench_command(bench_opts);
      if (*step) return llmsim::cli::step_time_command(step_opts, std::cout);
      if (*schema) return llmsim::cli::schema_command(schema_format, std::cout);
      if (*regress)
        return llmsim::regress::regress_command(regress_opts, std::filesystem::read_symlink("/proc/self/exe").string(),
                                                std::cout);
      if (*sweep_collect) return llmsim::sweep::sweep_collect_command(sweep_dir, std::cout);
      if (*sweep_point) return llmsim::sweep::sweep_run_point_command(sweep_dir, sweep_index);
      if (*sweep) return llmsim::sweep::sweep_command(sweep_opts, std::cout);
      // [dispatch: each command's call above this line]
      return llmsim::cli::list_command(what, std::cout);
    }();
  } catch (...) {
    code = llmsim::exit_code_for(std::current_exception(), std::cerr);
  }
  return llmsim::cli::flushed_stdout(code, std::cerr);
}
