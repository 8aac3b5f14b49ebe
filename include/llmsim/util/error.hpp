#pragma once
// Typed errors of llmsim. Library code throws; only main() turns an error into an exit code.
#include <stdexcept>
#include <string>

namespace llmsim {

/// Bad input: a scenario, preset or command-line value that is wrong.
/// `path` is a JSON pointer into the scenario ("/parallelism/tp") or a file path; `what()` is the whole
/// one-line message "<path>: <what is wrong> (<what is allowed>)". main() prints "error: " + what() and exits 2.
class ScenarioError : public std::runtime_error {
 public:
  ScenarioError(std::string path, const std::string& message)
      : std::runtime_error(path + ": " + message), path_(std::move(path)) {}
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

/// A failure inside the simulation that is not the user's input (a deadlock, an inconsistent program).
/// main() prints it and exits 1.
class SimulationError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace llmsim
