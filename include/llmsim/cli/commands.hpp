#pragma once
// The subcommands of the llmsim executable, callable from tests. Each returns the process exit code;
// bad input surfaces as ScenarioError (exit 2, printed by main).
#include <ostream>
#include <string>
#include <vector>

namespace llmsim::cli {

struct RunOptions {
  std::string scenario;
  std::string out;                     ///< empty = results/<scenario name>/
  std::vector<std::string> overrides;  ///< "json.path=value"
  std::string log_level = "info";
  std::string progress = "auto";       ///< on | off | auto (a long run on a terminal)
};

struct BenchCliOptions {
  RunOptions scenario;          ///< scenario file and --set overrides
  std::string collective = "all-reduce";
  std::string algorithm = "auto";
  int ranks = 0;
  std::string min = "1K", max = "8G";
  double factor = 2;
  int window = 0;
  std::string csv;              ///< also write the table as CSV to this file
};

struct StepTimeOptions {
  RunOptions scenario;
  std::string prefill;  ///< "TOKENS" or "TOKENSxPROMPTS": prompts of TOKENS tokens in one step (empty: decode)
  int decode = 0;   ///< sequences
  int context = 0;  ///< KV tokens per decoding sequence
};

int run_command(const RunOptions& o);
/// One serving step of the scenario's replica (serving/step_model.hpp): prints {"time_ms": ...} as JSON.
int step_time_command(const StepTimeOptions& o, std::ostream& out);
/// nccl-tests-style sweep of one collective (bench/collective_bench.hpp).
int bench_command(const BenchCliOptions& o);
int validate_command(const RunOptions& o);
/// Lists presets (hardware, models, topologies) or registered strategies with their parameters.
int list_command(const std::string& what, std::ostream& out);
/// `code`, unless standard output could not be written (a full disk, a closed pipe): then one line on `err`
/// and exit 2, since the output the command exists for is lost.
int flushed_stdout(int code, std::ostream& err);

}  // namespace llmsim::cli
