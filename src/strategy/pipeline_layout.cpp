#include "llmsim/strategy/pipeline_layout.hpp"

#include <cctype>
#include <cstdio>

#include "llmsim/util/error.hpp"

namespace llmsim::strategy {

namespace {
constexpr long kMaxSlots = 100000;
const char* const kAllowed =
    "E embedding, t transformer layer, m MTP layer, L loss; '|' ends a chunk, x*n and (...)*n repeat, ',' is ignored";

/// `c` as a message shows it: itself if printable ASCII, else its byte value.
std::string shown(char c) {
  if (std::isprint(static_cast<unsigned char>(c))) return std::string("'") + c + "'";
  char hex[8];
  std::snprintf(hex, sizeof hex, "0x%02X", static_cast<unsigned char>(c));
  return std::string("the byte ") + hex;
}

/// Reads the count after "*" at `at` (advancing past it).
long repeat_count(const std::string& text, size_t& at, const std::string& path) {
  ++at;  // the '*'
  long n = 0;
  size_t digits = 0;
  for (; at < text.size() && std::isdigit(static_cast<unsigned char>(text[at])); ++at, ++digits)
    if ((n = n * 10 + (text[at] - '0')) > kMaxSlots)
      throw ScenarioError(path, "a repetition count above " + std::to_string(kMaxSlots));
  if (digits == 0) throw ScenarioError(path, "'*' needs a count after it (e.g. t*4 or (t*2|)*3)");
  return n;
}

/// `text` with every (group)*n and x*n written out and ',' dropped, as Megatron-LM's parse_str_to_list does.
std::string unrolled(const std::string& text, const std::string& path) {
  std::string out;
  const auto grow = [&](const std::string& piece, long n) {
    if (static_cast<double>(out.size()) + static_cast<double>(piece.size()) * n > kMaxSlots)
      throw ScenarioError(path, "more than " + std::to_string(kMaxSlots) + " slots once unrolled");
    for (long i = 0; i < n; ++i) out += piece;
  };
  for (size_t at = 0; at < text.size();) {
    const char c = text[at];
    if (c == ',') {
      ++at;
    } else if (c == '(') {
      const size_t close = text.find(')', at), nested = text.find('(', at + 1);
      if (close == std::string::npos) throw ScenarioError(path, "a '(' is not closed by a ')'");
      if (nested != std::string::npos && nested < close) throw ScenarioError(path, "groups (...) do not nest");
      const std::string group = unrolled(text.substr(at + 1, close - at - 1), path);
      at = close + 1;
      if (at >= text.size() || text[at] != '*')
        throw ScenarioError(path, "a group (...) needs a repetition count after it, (...)*n");
      grow(group, repeat_count(text, at, path));
    } else if (c == ')') {
      throw ScenarioError(path, "a ')' closes no group");
    } else if (c == '*') {
      throw ScenarioError(path, "'*' repeats the character or group before it: there is none");
    } else {
      ++at;
      grow(std::string(1, c), at < text.size() && text[at] == '*' ? repeat_count(text, at, path) : 1);
    }
  }
  return out;
}
}  // namespace

std::vector<LayoutChunk> parse_pipeline_layout(const std::string& layout, const std::string& path) {
  const std::string slots = unrolled(layout, path);
  for (char c : slots)
    if (std::string("EtmL|").find(c) == std::string::npos)
      throw ScenarioError(path, shown(c) + " is not a layout character (" + kAllowed + ")");
  std::vector<LayoutChunk> chunks(1);
  bool any = false, ended = false;  // a slot seen; the loss seen
  for (char c : slots) {
    LayoutChunk& k = chunks.back();
    if (ended && c != '|') throw ScenarioError(path, "L (the loss) must be the last slot");
    if (c == 'E' && any) throw ScenarioError(path, "E (the embedding) must be the first slot, once");
    any = any || c != '|';
    if (c == '|') chunks.emplace_back();
    if (c == 't') ++k.layers;
    if (c == 'm') ++k.mtp_layers;
    if (c == 'E') k.embedding = true;
    if (c == 'L') k.loss = ended = true;
  }
  return chunks;
}

}  // namespace llmsim::strategy
