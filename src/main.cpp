// llmsim command-line front end: parses arguments (CLI11) and calls the library. Exit codes: 0 success,
// 2 bad input (scenario or command line), 1 simulation failure.
#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

#include <CLI/CLI.hpp>
#include <iostream>

#include "llmsim/cli/commands.hpp"
#include "llmsim/collectives/collective.hpp"
#include "llmsim/util/error.hpp"

int main(int argc, char** argv) {
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
  bench->add_option("--factor", bench_opts.factor, "size multiplier between steps")->check(CLI::Range(1.01, 1e6));
  bench->add_option("--window", bench_opts.window, "direct algorithms: concurrent peers (0 = all)")->check(CLI::NonNegativeNumber);
  bench->add_option("--csv", bench_opts.csv, "also write the table as CSV to this file");
  bench->add_option("--log-level", bench_opts.scenario.log_level, "trace, debug, info, warn, error or off")
      ->check(CLI::IsMember({"trace", "debug", "info", "warn", "error", "off"}));

  llmsim::cli::StepTimeOptions step_opts;
  auto* step = app.add_subcommand("step-time", "one serving step of a scenario's replica (prefill or decode), in ms");
  step->add_option("scenario", step_opts.scenario.scenario, "serving scenario JSON file")->required();
  step->add_option("--set", step_opts.scenario.overrides, "override a field: json.path=value (repeatable)");
  auto* prefill = step->add_option("--prefill", step_opts.prefill, "prompt tokens of one prefill alone")
                      ->check(CLI::Range(1, 1 << 24));
  auto* decode = step->add_option("--decode", step_opts.decode, "sequences of one decode step")->check(CLI::Range(1, 1 << 20));
  step->add_option("--context", step_opts.context, "tokens in each decoding sequence's KV cache")
      ->check(CLI::Range(0, 1 << 24))
      ->needs(decode);
  prefill->excludes(decode);

  // [subcommands: each command's options above this line]
  std::string what;
  auto* list = app.add_subcommand("list", "list presets and registered strategies");
  list->add_option("what", what, "hardware, models, topologies, strategies, routing, faults or serving")
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
    std::cerr << "error: " << e.what() << " (see llmsim --help)\n";
    return 2;
  }
  try {
    if (*run) return llmsim::cli::run_command(run_opts);
    if (*validate) return llmsim::cli::validate_command(validate_opts);
    if (*bench) return llmsim::cli::bench_command(bench_opts);
    if (*step) return llmsim::cli::step_time_command(step_opts, std::cout);
    // [dispatch: each command's call above this line]
    return llmsim::cli::list_command(what, std::cout);
  } catch (const llmsim::ScenarioError& e) {
    std::cerr << "error: " << e.what() << "\n";
    return 2;
  } catch (const llmsim::SimulationError& e) {
    std::cerr << "simulation error: " << e.what() << "\n";
    return 1;
  } catch (const std::exception& e) {
    std::cerr << "error: " << e.what() << "\n";
    return 1;
  }
}
