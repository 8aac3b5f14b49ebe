#pragma once
// Typed errors of llmsim and its one exit-code policy. Library code throws; only main() turns an error into an
// exit code, through exit_code_for() (src/util/error.cpp):
//   ScenarioError            -> exit 2, "error: <path>: <what is wrong> (<what is allowed>)"  (the user's input)
//   std::filesystem::filesystem_error -> exit 2, "error: <operation>: <reason> [<path>]" (a path the user gave
//                               cannot be created, read or written: permissions, /proc, a file where a folder is)
//   SIGINT, SIGTERM, SIGHUP  -> exit 128 + signal (130, 143, 129), "interrupted: no output written" (util/interrupt.hpp)
//   SimulationError, others  -> exit 1, "internal error (a bug in llmsim, please report it): ..."
// Exit 1 is otherwise only a result: `regress` found a regression or a failed scenario, `sweep` has failed points.
// Every message is one line: control characters in it (from a file name, a value or a preset name) are escaped.
#include <exception>
#include <iosfwd>
#include <optional>
#include <stdexcept>
#include <string>

namespace llmsim {

/// A control character (< 0x20, 0x7f): what would break a one-line message or a line of a generated script.
bool is_control(char c);
/// `text` with every control character written as \n, \t, \r or \xHH, and every UTF-8 C1 control, line or
/// paragraph separator and bidirectional formatting character as \uXXXX, so that it stays one line as written.
std::string escape_control(const std::string& text);

/// A number as a user wrote it: an integral value as an integer ("1000001", not "1e+06"), any other value in
/// the shortest form that reads back to the same double ("0.1", "1.5e-07").
std::string plain_number(double v);
/// The finite number `text` writes in decimal (digits, '.', an exponent, signs; all of it), or nothing: no
/// hexadecimal ("0x1"), "inf" or "nan", which std::stod would also read.
std::optional<double> decimal_number(const std::string& text);

/// Bad input: a scenario, preset or command-line value that is wrong.
/// `path` is a JSON pointer into the scenario ("/parallelism/tp"), a flag ("--out x") or a file path; `what()` is
/// the whole one-line message "<path>: <what is wrong> (<what is allowed>)" with control characters escaped.
class ScenarioError : public std::runtime_error {
 public:
  /// An empty `path` (an empty file name given) is shown as ''.
  ScenarioError(std::string path, std::string message)
      : std::runtime_error(escape_control((path.empty() ? "''" : path) + ": " + message)),
        path_(std::move(path)),
        message_(std::move(message)) {}
  const std::string& path() const { return path_; }
  /// What is wrong, without the path (to re-locate an error at another path).
  const std::string& message() const { return message_; }

 private:
  std::string path_;
  std::string message_;
};

/// Bad input in a value itself, whatever the other fields hold: its type, its range or its allowed names (a field's
/// schema, a preset's name). A sweep refuses an axis value that raises it before running any point.
class ValueError : public ScenarioError {
 public:
  using ScenarioError::ScenarioError;
};

/// A failure inside the simulation that is not the user's input (a deadlock, an inconsistent program): a bug.
class SimulationError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// Prints the one line for `error` on `err` and returns the process exit code (the table above).
int exit_code_for(const std::exception_ptr& error, std::ostream& err);

}  // namespace llmsim
