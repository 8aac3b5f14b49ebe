#include "llmsim/scenario/json_text.hpp"

#include <vector>

#include "llmsim/util/error.hpp"
#include "llmsim/util/limits.hpp"

namespace llmsim::scenario {

using nlohmann::json;

std::string pointer_token(const std::string& key) {
  std::string out;
  for (const char c : key) out += c == '~' ? "~0" : c == '/' ? "~1" : std::string(1, c);
  return out;
}

namespace {

/// "line L, column C" of byte `offset` of `text` (1-based).
std::string position(const std::string& text, size_t offset) {
  size_t line = 1, col = 1;
  for (size_t i = 0; i < offset && i < text.size(); ++i) {
    if (text[i] == '\n') {
      ++line;
      col = 1;
    } else {
      ++col;
    }
  }
  return "line " + std::to_string(line) + ", column " + std::to_string(col);
}

/// nlohmann's SAX interface building the document, refusing repeated keys and integers beyond 64 bits.
class StrictBuilder {
 public:
  json root;
  std::string problem;       ///< set when a callback stops the parse
  size_t error_offset = 0;   ///< byte offset of a syntax error
  std::string syntax_error;  ///< nlohmann's message for it

  bool null() { return put(json(nullptr)); }
  bool boolean(bool v) { return put(json(v)); }
  bool number_integer(json::number_integer_t v) { return put(json(v)); }
  bool number_unsigned(json::number_unsigned_t v) { return put(json(v)); }
  bool number_float(json::number_float_t v, const std::string& text) {
    if (text.find_first_of(".eE") == std::string::npos) {
      problem = "integer " + text + " at " + here() + " is beyond 64 bits (integers range from -9223372036854775808 "
                "to 18446744073709551615)";
      return false;
    }
    return put(json(v));
  }
  bool string(std::string& v) { return put(json(std::move(v))); }
  bool binary(json::binary_t&) { return put(json()); }  // not produced by the JSON text format
  bool start_object(std::size_t) { return open(json::object()); }
  bool start_array(std::size_t) { return open(json::array()); }
  bool end_object() { return close(); }
  bool end_array() { return close(); }
  bool key(std::string& k) {
    if (stack_.back()->contains(k)) {
      problem = "key \"" + k + "\" appears twice in " + (path_.empty() ? std::string("/") : joined()) +
                " (each key once per object)";
      return false;
    }
    key_ = std::move(k);
    return true;
  }
  bool parse_error(std::size_t offset, const std::string&, const nlohmann::detail::exception& e) {
    error_offset = offset;
    syntax_error = e.what();  // "[json.exception.parse_error.101] parse error at line 1, column 2: syntax error ..."
    if (const auto id = syntax_error.find("] "); id != std::string::npos) syntax_error = syntax_error.substr(id + 2);
    if (syntax_error.rfind("parse error", 0) == 0 && syntax_error.find(": ") != std::string::npos)
      syntax_error = syntax_error.substr(syntax_error.find(": ") + 2);
    return false;
  }

 private:
  std::vector<json*> stack_;
  std::vector<std::string> path_;  ///< pointer tokens of the containers on the stack
  std::string key_;

  std::string joined() const {
    std::string p;
    for (const auto& t : path_) p += "/" + t;
    return p;
  }
  std::string here() const {
    if (stack_.empty()) return "/";
    const json& top = *stack_.back();
    return joined() + "/" + (top.is_array() ? std::to_string(top.size()) : pointer_token(key_));
  }
  json* place(json v) {
    if (stack_.empty()) {
      root = std::move(v);
      return &root;
    }
    json& top = *stack_.back();
    if (top.is_array()) {
      top.push_back(std::move(v));
      return &top.back();
    }
    top[key_] = std::move(v);
    return &top[key_];
  }
  bool put(json v) {
    place(std::move(v));
    return true;
  }
  bool open(json container) {
    if (stack_.size() >= static_cast<size_t>(limits::kMaxJsonDepth)) {
      problem = "objects and arrays nest deeper than " + std::to_string(limits::kMaxJsonDepth) + " levels at " +
                here() + " (at most " + std::to_string(limits::kMaxJsonDepth) + ")";
      return false;
    }
    const std::string token = stack_.empty() ? "" : stack_.back()->is_array() ? std::to_string(stack_.back()->size())
                                                                               : pointer_token(key_);
    json* slot = place(std::move(container));
    if (!stack_.empty()) path_.push_back(token);
    stack_.push_back(slot);
    return true;
  }
  bool close() {
    stack_.pop_back();
    if (!path_.empty() && !stack_.empty()) path_.pop_back();
    return true;
  }
};

}  // namespace

json parse_json_text(const std::string& text, const std::string& origin) {
  const auto nul = text.find('\0');
  if (nul != std::string::npos)
    throw ScenarioError(origin, "malformed JSON at " + position(text, nul) + ": a NUL byte (JSON text has none)");
  StrictBuilder b;
  if (json::sax_parse(text, &b, json::input_format_t::json, true)) return std::move(b.root);
  if (!b.problem.empty()) throw ScenarioError(origin, b.problem);
  throw ScenarioError(origin, "malformed JSON at " + position(text, b.error_offset > 0 ? b.error_offset - 1 : 0) + ": " +
                                  b.syntax_error);
}

std::string json_reason(const json::exception& e) {
  const std::string what = e.what();
  const auto end = what.find("] ");
  return what.rfind("[json.exception.", 0) == 0 && end != std::string::npos ? what.substr(end + 2) : what;
}

std::string find_null(const json& doc, const std::string& pointer) {
  if (doc.is_null()) return pointer.empty() ? "/" : pointer;
  if (doc.is_object()) {
    for (const auto& [k, v] : doc.items())
      if (auto p = find_null(v, pointer + "/" + pointer_token(k)); !p.empty()) return p;
  } else if (doc.is_array()) {
    for (size_t i = 0; i < doc.size(); ++i)
      if (auto p = find_null(doc[i], pointer + "/" + std::to_string(i)); !p.empty()) return p;
  }
  return "";
}

}  // namespace llmsim::scenario
