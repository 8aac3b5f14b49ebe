#pragma once
// The one strict JSON reader of llmsim's input files (scenarios, presets, --set values, sweep and baseline
// files, co-activation files). Stricter than RFC 8259 parsers that keep the last of a repeated key: a document
// is rejected when it
//   - repeats a key inside one object (which one was meant is unknowable),
//   - has any byte after the document (a second document, garbage, a NUL byte),
//   - holds a NUL byte anywhere (nlohmann's lexer would take it as the end of the input),
//   - writes an integer beyond 64 bits (it would silently become an inexact double),
//   - nests objects and arrays deeper than limits::kMaxJsonDepth.
// Errors are ScenarioError at `origin` (a file name or "--set key"), with the line and column or JSON pointer.
#include <nlohmann/json.hpp>
#include <string>

namespace llmsim::scenario {

/// Parses `text` strictly (above). Throws ScenarioError("<origin>", "malformed JSON at line L, column C: ...").
nlohmann::json parse_json_text(const std::string& text, const std::string& origin);

/// nlohmann's message for `e` without its "[json.exception.type_error.302] " prefix ("type must be string, but is
/// number"), for one-line errors about files llmsim wrote itself (sweep plans, run summaries).
std::string json_reason(const nlohmann::json::exception& e);

/// RFC 6901 escaping of one reference token of a JSON pointer: "~" as "~0", "/" as "~1" ("a/b" -> "a~1b").
std::string pointer_token(const std::string& key);

/// The first null inside `doc`, as a JSON pointer ("/cluster/nic_latency_us"), or "" when there is none.
/// Scenarios never hold null: a key left out takes its default, so a null is always an accident.
std::string find_null(const nlohmann::json& doc, const std::string& pointer = "");

}  // namespace llmsim::scenario
