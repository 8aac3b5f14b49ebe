#pragma once
// The two-column rows of the summaries printed on stdout (report/summary.hpp, report/fault_report.hpp).
#include <string>

namespace llmsim::report {

/// "  <label, padded to 28 characters> <value>\n"
std::string table_row(const std::string& label, const std::string& value);
/// `v` formatted by printf format `fmt` (one number), e.g. format_number(1.5, "%.1f s").
std::string format_number(double v, const char* fmt);

}  // namespace llmsim::report
