#pragma once
// An output directory that appears whole or not at all: files are written into a sibling staging directory
// that is renamed onto the final path by commit(); without commit() the staging directory is removed.
// An existing path is only replaced if it is empty or a previous llmsim output (summary.json and only files
// llmsim writes: trace.json, scenario.resolved.json, links.csv, moe_load.csv, moe_traffic.csv, throughput.csv,
// fault_trace.json, requests.csv, kv_usage.csv, capacity.csv, events.csv); otherwise the constructor throws ScenarioError ("--out DIR: ...").
// An interrupt (util/interrupt.hpp) removes the staging directory. The constructor removes the staging and
// replaced siblings ("DIR.partial-<pid>", "DIR.old-<pid>") that a process no longer alive left (SIGKILL, a
// power loss); a live process's (a concurrent run to the same DIR) are kept.
#include <optional>
#include <functional>
#include <ostream>
#include <string>

#include "llmsim/util/interrupt.hpp"

namespace llmsim::report {

class OutputDir {
 public:
  explicit OutputDir(std::string final_dir);
  ~OutputDir();
  OutputDir(const OutputDir&) = delete;
  OutputDir& operator=(const OutputDir&) = delete;

  /// Path of `file` inside the staging directory.
  std::string path(const std::string& file) const;
  /// Replaces `final_dir` (if it exists) by the staged files; an interrupt waits until it is done.
  void commit();
  const std::string& final_dir() const { return final_; }

 private:
  std::string final_, staging_;
  std::optional<util::RemoveOnInterrupt> on_interrupt_;  ///< the staging directory, until commit()
  bool committed_ = false;
};

/// Writes `text` to `file`; ScenarioError at `file` ("cannot write (No space left on device)") if it cannot: the
/// output's place, not llmsim, is at fault.
void write_text(const std::string& file, const std::string& text);
/// Writes `file` as `write` produces it (no copy of the whole text in memory); ScenarioError as write_text.
void write_stream(const std::string& file, const std::function<void(std::ostream&)>& write);
/// The file that writing `file` replaces: `file`, or through a symbolic link its final target (the link is kept).
/// ScenarioError at `file` if it exists and is not a regular file: a device, a FIFO or a directory is an error,
/// never something to overwrite.
std::string replaced_file(const std::string& file);
/// Writes `text` to replaced_file(`file`) through a temporary sibling and a rename: readers never see half a file,
/// and a failure (a full disk) or an interrupt leaves the file as it was and no temporary behind. ScenarioError as
/// write_text and replaced_file.
void write_atomically(const std::string& file, const std::string& text);

}  // namespace llmsim::report
