#include "llmsim/report/output_dir.hpp"

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <set>
#include <stdexcept>

#include "llmsim/util/error.hpp"

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
}  // namespace

OutputDir::OutputDir(std::string final_dir) : final_(std::move(final_dir)) {
  const std::string shown = "--out " + final_;
  fs::path f = fs::absolute(final_).lexically_normal();
  if (f.filename().empty()) f = f.parent_path();
  final_ = f.string();
  std::error_code ec;
  if (fs::exists(f, ec) && !fs::is_directory(f, ec))
    throw ScenarioError(shown, "exists and is not a directory (give a new directory or a previous llmsim output)");
  if (fs::is_directory(f, ec) && !fs::is_empty(f, ec) && !is_llmsim_output(f))
    throw ScenarioError(shown, "is a directory that is not an llmsim output and would be replaced; choose another path");
  staging_ = final_ + ".partial-" + std::to_string(::getpid());
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
  const std::string old = final_ + ".old-" + std::to_string(::getpid());
  if (fs::exists(final_)) fs::rename(final_, old);
  fs::rename(staging_, final_);
  fs::remove_all(old);
  committed_ = true;
}

void write_text(const std::string& file, const std::string& text) {
  std::ofstream out(file);
  out << text;
  if (!out) throw std::runtime_error("cannot write " + file);
}

}  // namespace llmsim::report
