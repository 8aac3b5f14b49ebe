#include "llmsim/report/output_dir.hpp"

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <stdexcept>

namespace llmsim::report {

namespace fs = std::filesystem;

OutputDir::OutputDir(std::string final_dir) : final_(std::move(final_dir)) {
  fs::path f = fs::absolute(final_).lexically_normal();
  if (f.filename().empty()) f = f.parent_path();
  final_ = f.string();
  staging_ = final_ + ".partial-" + std::to_string(::getpid());
  fs::remove_all(staging_);
  fs::create_directories(staging_);
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
