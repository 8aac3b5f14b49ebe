#include "llmsim/util/input_file.hpp"

#include <sys/stat.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

#include "llmsim/util/error.hpp"

namespace llmsim::util {

namespace {
std::string kind_of(mode_t mode) {
  if (S_ISDIR(mode)) return "a directory";
  if (S_ISFIFO(mode)) return "a FIFO";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  if (S_ISSOCK(mode)) return "a socket";
  return "not a regular file";
}

std::string size_text(double bytes) {
  const char* units[] = {"bytes", "KiB", "MiB", "GiB", "TiB"};
  int u = 0;
  while (bytes >= 1024 && u < 4) {
    bytes /= 1024;
    ++u;
  }
  return plain_number(u == 0 ? bytes : static_cast<double>(static_cast<long long>(bytes * 10 + 0.5)) / 10) + " " + units[u];
}
}  // namespace

void check_input_file(const std::string& file, const std::string& where, double max_bytes) {
  const std::string shown = where == file ? "" : file + " ";
  struct stat st {};
  if (::stat(file.c_str(), &st) != 0) {
    const int e = errno;
    if (e == ENOENT || e == ENOTDIR) throw ScenarioError(where, shown + "does not exist");
    if (e == ENAMETOOLONG) throw ScenarioError(where, "file name too long (at most 255 bytes a name, 4095 a path)");
    throw ScenarioError(where, shown + "cannot be read (" + std::strerror(e) + ")");
  }
  if (!S_ISREG(st.st_mode))
    throw ScenarioError(where, shown + "is " + kind_of(st.st_mode) + " (expected a regular file)");
  if (static_cast<double>(st.st_size) > max_bytes)
    throw ScenarioError(where, shown + "is " + size_text(static_cast<double>(st.st_size)) + ", more than the " +
                                   size_text(max_bytes) + " an input file of this kind may have");
}

std::string non_regular_kind(const std::string& file) {
  struct stat st {};
  return ::stat(file.c_str(), &st) == 0 && !S_ISREG(st.st_mode) ? kind_of(st.st_mode) : "";
}

std::string read_input_file(const std::string& file, const std::string& where, double max_bytes) {
  check_input_file(file, where, max_bytes);
  std::ifstream in(file, std::ios::binary);
  if (!in) throw ScenarioError(where, (where == file ? "" : file + " ") + "cannot be opened for reading");
  std::ostringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

}  // namespace llmsim::util
