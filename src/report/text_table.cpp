#include "llmsim/report/text_table.hpp"

#include <cstdio>

namespace llmsim::report {

std::string table_row(const std::string& label, const std::string& value) {
  char line[256];
  std::snprintf(line, sizeof line, "  %-28s ", label.c_str());
  return line + value + "\n";
}

std::string format_number(double v, const char* fmt) {
  char b[96];
  std::snprintf(b, sizeof b, fmt, v);
  return b;
}

}  // namespace llmsim::report
