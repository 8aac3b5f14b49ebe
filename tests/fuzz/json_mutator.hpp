#pragma once
// Structure-aware mutation of JSON documents for the scenario fuzzer (scenario_fuzz.cpp). Byte mutations of a
// scenario mostly break its syntax and stop at the parser; these parse the document, change one node of the tree
// and write it back (compact, invalid UTF-8 replaced), so that the checks behind the parser see the changes.
#include <string>

namespace llmsim::fuzz {

/// `text` with one node changed: an edge-case value (0, -1, 2^31, 1e308, null, "", a 300-character name,
/// "/dev/zero", {}, [] ...), a number scaled or negated, a string or key mutated by libFuzzer's byte mutator
/// (which inserts dictionary words), a member or element removed, or another node of the document copied over it.
/// Empty if `text` is not JSON. `seed` picks the node and the change.
std::string mutate_json(const std::string& text, unsigned seed);

/// `first` with a member of `second` inserted into one of its objects, or one of its nodes replaced by a node of
/// `second` (e.g. a serving section in a training scenario). Empty if either is not JSON or has no such node.
std::string cross_json(const std::string& first, const std::string& second, unsigned seed);

}  // namespace llmsim::fuzz
