#pragma once
// One point of a sweep: `llmsim run SCENARIO --set <shared> --set <point> --out DIR/runs/<id>` in a child
// process, its output in DIR/runs/<id>.log, and when it has ended a marker DIR/runs/<id>.done
// {"status", "exit_code", "error"} written atomically. Status: "ok" (exit 0 with a summary.json), "invalid"
// (exit 2: the combination is bad input; "error" is the run's one-line message without "error: "), "failed"
// (anything else; "error" is its last error line or how it ended). A point without a marker (never run, or
// killed with the sweep) is redone from scratch, and so is a failed one; ok and invalid points are final.
#include <sys/types.h>

#include <optional>
#include <string>

#include "llmsim/sweep/plan.hpp"

namespace llmsim::sweep {

struct Outcome {
  std::string status;  ///< ok, invalid, failed
  int exit_code = 0;   ///< of `llmsim run`; -1 if it was killed by a signal
  std::string error;   ///< empty for ok
};

/// The point's marker, if it has one.
std::optional<Outcome> read_marker(const SweepDir& dir, const std::string& id);

/// True if the point has a final marker (ok or invalid): a rerun skips it.
bool is_final(const std::optional<Outcome>& marker);

/// Removes what an earlier attempt of the point left (output, staging directories, log, marker) and starts
/// its run with `exe` (the llmsim executable); returns the child's pid.
pid_t start_point(const SweepDir& dir, const SweepDefinition& d, const Point& p, const std::string& exe);

/// Classifies the ended run from its wait status and log, writes the marker and returns the outcome.
Outcome finish_point(const SweepDir& dir, const Point& p, int wait_status);

}  // namespace llmsim::sweep
