#include "llmsim/sweep/point_run.hpp"

#include <sys/wait.h>

#include <fstream>
#include <sstream>

#include "llmsim/report/output_dir.hpp"
#include "llmsim/util/process.hpp"

namespace llmsim::sweep {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

/// The last line of the log starting with one of the run's error prefixes, without "error: ".
std::string last_error_line(const fs::path& log) {
  std::ifstream in(log);
  std::string line, found;
  while (std::getline(in, line)) {
    if (line.rfind("error: ", 0) == 0) found = line.substr(7);
    if (line.rfind("simulation error: ", 0) == 0) found = line;
  }
  return found;
}

}  // namespace

std::optional<Outcome> read_marker(const SweepDir& dir, const std::string& id) {
  std::ifstream in(dir.marker(id));
  if (!in) return std::nullopt;
  try {
    const auto j = json::parse(in);
    return Outcome{j.at("status").get<std::string>(), j.at("exit_code").get<int>(), j.at("error").get<std::string>()};
  } catch (const json::exception&) {
    return std::nullopt;  // not a marker llmsim wrote whole: the point is redone
  }
}

bool is_final(const std::optional<Outcome>& m) { return m && (m->status == "ok" || m->status == "invalid"); }

pid_t start_point(const SweepDir& dir, const SweepDefinition& d, const Point& p, const std::string& exe) {
  fs::create_directories(dir.runs());
  for (const auto& e : fs::directory_iterator(dir.runs())) {
    const std::string name = e.path().filename().string();
    if (name == p.id || name.rfind(p.id + ".", 0) == 0) fs::remove_all(e.path());  // output, .partial-*, .log, .done
  }
  std::vector<std::string> argv = {exe, "run", d.scenario};
  for (const auto* sets : {&d.sets, &p.sets})
    for (const auto& s : *sets) argv.insert(argv.end(), {"--set", s});
  argv.insert(argv.end(), {"--out", dir.run(p.id).string()});
  return util::spawn_logged(argv, dir.log(p.id).string());
}

Outcome finish_point(const SweepDir& dir, const Point& p, int wait_status) {
  Outcome o;
  o.exit_code = WIFEXITED(wait_status) ? WEXITSTATUS(wait_status) : -1;
  if (o.exit_code == 0 && fs::exists(dir.run(p.id) / "summary.json")) {
    o.status = "ok";
  } else {
    o.status = o.exit_code == 2 ? "invalid" : "failed";
    o.error = last_error_line(dir.log(p.id));
    if (o.error.empty()) o.error = "llmsim run ended with " + util::describe_status(wait_status);
  }
  report::write_atomically(dir.marker(p.id).string(),
                   json{{"status", o.status}, {"exit_code", o.exit_code}, {"error", o.error}}.dump() + "\n");
  return o;
}

}  // namespace llmsim::sweep
