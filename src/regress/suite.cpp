#include "llmsim/regress/suite.hpp"

#include <sys/wait.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <sstream>

#include "llmsim/scenario/json_text.hpp"
#include "llmsim/util/error.hpp"
#include "llmsim/util/limits.hpp"
#include "llmsim/util/input_file.hpp"
#include "llmsim/util/interrupt.hpp"
#include "llmsim/util/process.hpp"

namespace llmsim::regress {

namespace fs = std::filesystem;

namespace {

/// A temporary directory removed with everything in it at the end of its scope or on an interrupt.
class TempDir {
 public:
  TempDir() {
    std::string tmpl = (fs::temp_directory_path() / "llmsim-regress-XXXXXX").string();
    util::DeferInterrupts defer;  // created and registered together
    if (!::mkdtemp(tmpl.data())) throw SimulationError("regress: cannot create a temporary directory");
    path_ = tmpl;
    on_interrupt_.emplace(tmpl);
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path_, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const fs::path& path() const { return path_; }

 private:
  fs::path path_;
  std::optional<util::RemoveOnInterrupt> on_interrupt_;
};

std::string read_text(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

/// The last non-empty line of `text`, without a leading "error: ".
std::string last_line(const std::string& text) {
  std::string last;
  std::stringstream ss(text);
  for (std::string l; std::getline(ss, l);)
    if (!l.empty()) last = l;
  return last.rfind("error: ", 0) == 0 ? last.substr(7) : last;
}

/// A regress baseline (its "llmsim_version" key), not a scenario: a suite may keep its own baseline beside the
/// scenarios while another is compared.
bool is_baseline(const fs::path& file) {
  try {
    const auto j = nlohmann::json::parse(read_text(file));
    return j.is_object() && j.contains("llmsim_version");
  } catch (const nlohmann::json::exception&) {
    return false;  // not JSON: the run reports it
  }
}

/// Starts `executable run FILE --out OUT --log-level warn --set ...` with stdout and stderr in files of `work`.
pid_t spawn_run(const std::string& executable, const std::string& file, const std::vector<std::string>& overrides,
                const fs::path& work) {
  std::vector<std::string> args = {executable, "run", file, "--out", (work / "out").string(), "--log-level", "warn"};
  for (const auto& o : overrides) {
    args.push_back("--set");
    args.push_back(o);
  }
  try {
    return util::spawn_logged(args, (work / "stdout").string(), (work / "stderr").string());
  } catch (const std::runtime_error& e) {
    throw SimulationError("regress: " + std::string(e.what()) + " for " + file);
  }
}

/// The outcome of one finished child; throws ScenarioError for bad input (exit 2).
ScenarioRun collect(const std::string& file, int status, const fs::path& work) {
  ScenarioRun r;
  r.file = file;
  const std::string err = last_line(read_text(work / "stderr"));
  if (WIFEXITED(status) && WEXITSTATUS(status) == 2) {  // the child's line names the file itself when it is the cause
    const bool names_file = err.rfind(file + ": ", 0) == 0;
    throw ScenarioError(file, names_file ? err.substr(file.size() + 2) : err);
  }
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    r.failure = util::describe_status(status) + (err.empty() ? "" : ": " + err);
    return r;
  }
  try {
    const auto summary = nlohmann::json::parse(read_text(work / "out" / "summary.json"));
    if (summary.value("status", "ok") == "oom") {  // a result (exit 0) with no metric to compare: say why
      r.failure = "does not fit in GPU memory (summary.json \"status\": \"oom\")";
      return r;
    }
    r.metrics = extract_metrics(summary);
  } catch (const nlohmann::json::exception& e) {
    r.failure = "unreadable summary.json: " + scenario::json_reason(e);
  }
  return r;
}

}  // namespace

std::vector<std::string> suite_files(const std::string& dir, const std::string& baseline) {
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) throw ScenarioError(dir, "no such suite directory (a directory of scenario JSON files)");
  const fs::path skip = fs::weakly_canonical(baseline, ec);
  std::vector<std::string> files;
  for (const auto& e : fs::directory_iterator(dir, ec)) {
    if (e.path().extension() != ".json") continue;
    util::check_input_file(e.path().string(), e.path().string(), limits::kMaxJsonFileBytes);  // a dangling link, a FIFO
    std::error_code ec2;
    if (fs::weakly_canonical(e.path(), ec2) == skip || is_baseline(e.path())) continue;
    files.push_back(e.path().string());
  }
  if (ec) throw ScenarioError(dir, "cannot list the suite directory (" + ec.message() + ")");
  if (files.empty()) throw ScenarioError(dir, "no scenario in the suite directory (*.json files besides the baseline)");
  std::sort(files.begin(), files.end());
  return files;
}

std::string scenario_name(const std::string& file) { return fs::path(file).stem().string(); }

std::vector<ScenarioRun> run_suite(const std::string& executable, const std::vector<std::string>& files,
                                   const std::vector<std::string>& overrides, int jobs) {
  TempDir tmp;
  auto work = [&](size_t i) { return tmp.path() / std::to_string(i); };
  std::vector<ScenarioRun> runs(files.size());
  std::vector<int> statuses(files.size(), 0);
  std::map<pid_t, size_t> running;
  size_t next = 0;
  while (next < files.size() || !running.empty()) {
    while (next < files.size() && static_cast<int>(running.size()) < std::max(jobs, 1)) {
      fs::create_directories(work(next));
      running[spawn_run(executable, files[next], overrides, work(next))] = next;
      ++next;
    }
    int status = 0;
    const pid_t pid = util::wait_any(status);
    if (pid < 0) throw SimulationError("regress: waiting for a scenario run failed");
    const auto it = running.find(pid);
    if (it == running.end()) continue;  // not one of ours
    statuses[it->second] = status;
    running.erase(it);
  }
  for (size_t i = 0; i < files.size(); ++i) runs[i] = collect(files[i], statuses[i], work(i));
  return runs;
}

}  // namespace llmsim::regress
