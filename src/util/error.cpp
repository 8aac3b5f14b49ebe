#include "llmsim/util/error.hpp"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <new>
#include <ostream>

namespace llmsim {

bool is_control(char c) {
  const auto u = static_cast<unsigned char>(c);
  return u < 0x20 || u == 0x7f;
}

namespace {
/// The code point of a UTF-8 C1 control (U+0080-009F), line or paragraph separator (U+2028-2029) or bidirectional
/// formatting character (U+202A-202E, U+2066-2069) at text[i], which breaks, reorders or hides the rest of a
/// terminal line, or 0.
unsigned format_character(const std::string& text, size_t i) {
  const auto at = [&](size_t k) { return k < text.size() ? static_cast<unsigned char>(text[k]) : 0u; };
  if (at(i) == 0xC2 && at(i + 1) >= 0x80 && at(i + 1) <= 0x9F) return at(i + 1);
  if (at(i) != 0xE2) return 0;
  const unsigned cp = 0x2000 + ((at(i + 1) & 0x3F) << 6) + (at(i + 2) & 0x3F);
  const bool lead = at(i + 1) == 0x80 || at(i + 1) == 0x81, tail = (at(i + 2) & 0xC0) == 0x80;
  return lead && tail && ((cp >= 0x2028 && cp <= 0x202E) || (cp >= 0x2066 && cp <= 0x2069)) ? cp : 0;
}
}  // namespace

std::string escape_control(const std::string& text) {
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    const auto u = static_cast<unsigned char>(c);
    if (const unsigned cp = format_character(text, i)) {
      char code[10];
      std::snprintf(code, sizeof code, "\\u%04x", cp);
      out += code;
      i += cp < 0x100 ? 1 : 2;
    } else if (!is_control(c)) {
      out += c;
    } else if (c == '\n') {
      out += "\\n";
    } else if (c == '\t') {
      out += "\\t";
    } else if (c == '\r') {
      out += "\\r";
    } else {
      char hex[8];
      std::snprintf(hex, sizeof hex, "\\x%02x", u);
      out += hex;
    }
  }
  return out;
}

std::string plain_number(double v) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  char buf[64];
  if (v == std::floor(v) && std::fabs(v) < 1e18) {
    std::snprintf(buf, sizeof buf, "%.0f", v);
    return buf;
  }
  for (int digits = 1; digits <= 17; ++digits) {  // the shortest form that reads back exactly
    std::snprintf(buf, sizeof buf, "%.*g", digits, v);
    if (std::strtod(buf, nullptr) == v) break;
  }
  return buf;
}

std::optional<double> decimal_number(const std::string& text) {
  if (text.empty() || text.find_first_not_of("0123456789.eE+-") != std::string::npos) return std::nullopt;
  size_t used = 0;
  double v = 0;
  try {
    v = std::stod(text, &used);
  } catch (const std::exception&) {  // not a number, or beyond a double
    return std::nullopt;
  }
  if (used != text.size() || !std::isfinite(v)) return std::nullopt;
  return v;
}

int exit_code_for(const std::exception_ptr& error, std::ostream& err) {
  try {
    std::rethrow_exception(error);
  } catch (const ScenarioError& e) {
    err << "error: " << e.what() << "\n";
    return 2;
  } catch (const std::filesystem::filesystem_error& e) {  // a path the user gave cannot be made, read or written
    std::string what = e.what();
    const std::string prefix = "filesystem error: ";
    if (what.rfind(prefix, 0) == 0) what = what.substr(prefix.size());
    err << "error: " << escape_control(what) << "\n";
    return 2;
  } catch (const std::bad_alloc&) {
    err << "internal error (a bug in llmsim, please report it): out of memory; the work estimate let through a run "
           "too large for this machine\n";
    return 1;
  } catch (const std::exception& e) {
    err << "internal error (a bug in llmsim, please report it): " << escape_control(e.what()) << "\n";
    return 1;
  } catch (...) {
    err << "internal error (a bug in llmsim, please report it): unknown exception\n";
    return 1;
  }
}

}  // namespace llmsim
