#include "llmsim/report/output_dir.hpp"

#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <set>
#include <stdexcept>

#include "llmsim/util/error.hpp"
#include "llmsim/util/input_file.hpp"

namespace llmsim::report {

namespace fs = std::filesystem;

namespace {
/// True if `dir` holds only files llmsim writes (so replacing it loses nothing of the user's).
bool is_llmsim_output(const fs::path& dir) {
  static const std::set<std::string> ours = {"summary.json", "trace.json",    "scenario.resolved.json",
                                             "links.csv",    "moe_load.csv", "moe_traffic.csv",
                                             "throughput.csv", "fault_trace.json", "requests.csv",
                                             "kv_usage.csv", "capacity.csv", "events.csv"};
  std::error_code ec;
  bool has_summary = false;
  for (const auto& e : fs::directory_iterator(dir, ec)) {
    const std::string name = e.path().filename().string();
    if (!ours.count(name)) return false;
    has_summary = has_summary || name == "summary.json";
  }
  return !ec && has_summary;
}

/// The pid in `name` if it is `base` + `tag` + digits, else 0.
pid_t sibling_pid(const std::string& name, const std::string& base, const std::string& tag) {
  const std::string prefix = base + tag;
  if (name.compare(0, prefix.size(), prefix) != 0) return 0;
  const std::string digits = name.substr(prefix.size());
  if (digits.empty() || digits.size() > 9 || digits.find_first_not_of("0123456789") != std::string::npos) return 0;
  return static_cast<pid_t>(std::stol(digits));
}

/// Removes the ".partial-<pid>" and ".old-<pid>" siblings of `dir` whose process no longer exists.
void remove_stale_siblings(const fs::path& dir) {
  const std::string base = dir.filename().string();
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(dir.parent_path(), ec)) {
    const std::string name = e.path().filename().string();
    for (const char* tag : {".partial-", ".old-"}) {
      const pid_t pid = sibling_pid(name, base, tag);
      if (pid > 0 && ::kill(pid, 0) != 0 && errno == ESRCH) fs::remove_all(e.path(), ec);
    }
  }
}
}  // namespace

OutputDir::OutputDir(std::string final_dir) : final_(std::move(final_dir)) {
  const std::string shown = "--out " + final_;
  fs::path f = fs::absolute(final_).lexically_normal();
  if (f.filename().empty()) f = f.parent_path();
  final_ = f.string();
  std::error_code ec;
  if (fs::is_symlink(fs::symlink_status(f, ec)))
    throw ScenarioError(shown, "is a symbolic link, which the output would replace (name the directory itself)");
  if (fs::exists(f, ec) && !fs::is_directory(f, ec))
    throw ScenarioError(shown, "exists and is not a directory (give a new directory or a previous llmsim output)");
  if (fs::is_directory(f, ec) && !fs::is_empty(f, ec) && !is_llmsim_output(f))
    throw ScenarioError(shown, "is a directory that is not an llmsim output and would be replaced; choose another path");
  remove_stale_siblings(f);
  staging_ = final_ + ".partial-" + std::to_string(::getpid());
  on_interrupt_.emplace(staging_);  // before it exists: no interrupt can leave it
  fs::remove_all(staging_, ec);
  fs::create_directories(staging_, ec);
  if (ec) throw ScenarioError(shown, "cannot create the output directory (" + ec.message() + ")");
}

OutputDir::~OutputDir() {
  if (!committed_) {
    std::error_code ec;
    fs::remove_all(staging_, ec);
  }
}

std::string OutputDir::path(const std::string& file) const { return (fs::path(staging_) / file).string(); }

void OutputDir::commit() {
  util::DeferInterrupts defer;  // the old output is replaced whole or not at all
  const std::string old = final_ + ".old-" + std::to_string(::getpid());
  std::error_code ec, back;
  if (fs::exists(final_, back)) fs::rename(final_, old, ec);
  if (!ec) fs::rename(staging_, final_, ec);
  if (ec) {
    std::string kept;
    if (fs::exists(old, back)) {  // the previous output goes back where it was, or is named where it stays
      fs::rename(old, final_, back);
      if (back) kept = "; the previous output is in " + old;
    }
    throw ScenarioError("--out " + final_, "cannot put the output in place (" + ec.message() + ")" + kept);
  }
  fs::remove_all(old, back);
  committed_ = true;
  on_interrupt_.reset();
}

void write_text(const std::string& file, const std::string& text) {
  write_stream(file, [&](std::ostream& out) { out << text; });
}

void write_stream(const std::string& file, const std::function<void(std::ostream&)>& write) {
  std::ofstream out(file);
  if (!out) throw ScenarioError(file, std::string("cannot write (") + std::strerror(errno) + ")");
  write(out);
  out.close();  // a full disk shows on the flush
  if (!out) throw ScenarioError(file, std::string("cannot write (") + std::strerror(errno) + ")");
}

std::string replaced_file(const std::string& file) {
  if (const auto kind = util::non_regular_kind(file); !kind.empty())
    throw ScenarioError(file, "is " + kind + ", not a regular file to replace");
  fs::path p = file;  // a dangling link too: writing creates its target
  std::error_code ec;
  for (int hops = 0; fs::is_symlink(fs::symlink_status(p, ec)); ++hops) {
    const auto to = fs::read_symlink(p, ec);
    if (ec || hops == 40)
      throw ScenarioError(file, "cannot follow the link (" + (ec ? ec.message() : "a loop of symbolic links") + ")");
    p = to.is_absolute() ? to : p.parent_path() / to;
  }
  return p.string();
}

void write_atomically(const std::string& link_or_file, const std::string& text) {
  const std::string file = replaced_file(link_or_file);
  const std::string tmp = file + ".tmp-" + std::to_string(::getpid());
  const util::RemoveOnInterrupt partial(tmp);
  std::error_code ec;
  try {
    write_text(tmp, text);
  } catch (const ScenarioError& e) {
    fs::remove(tmp, ec);
    throw ScenarioError(file, e.message());
  }
  const auto replaced = fs::status(file, ec);  // a replaced file keeps its permissions
  if (!ec && fs::exists(replaced)) fs::permissions(tmp, replaced.permissions(), ec);
  fs::rename(tmp, file, ec);
  if (ec) {
    std::error_code ignored;
    fs::remove(tmp, ignored);
    throw ScenarioError(file, "cannot write (" + ec.message() + ")");
  }
}

}  // namespace llmsim::report
