#include "llmsim/strategy/pipeline_layout.hpp"

#include <cctype>

#include "llmsim/util/error.hpp"

namespace llmsim::strategy {

namespace {
constexpr long kMaxSlots = 100000;

/// Reads "*n" at `at` (advancing it) and returns n; 1 when no '*' follows.
long repeat_count(const std::string& text, size_t& at, const std::string& path) {
  if (at >= text.size() || text[at] != '*') return 1;
  size_t end = ++at;
  while (end < text.size() && std::isdigit(static_cast<unsigned char>(text[end])) && end - at < 7) ++end;
  if (end == at) throw ScenarioError(path, "'*' at character " + std::to_string(at) + " needs a count (e.g. t*4)");
  const long n = std::stol(text.substr(at, end - at));
  if (n > kMaxSlots || (end < text.size() && std::isdigit(static_cast<unsigned char>(text[end]))))
    throw ScenarioError(path, "a repetition count above " + std::to_string(kMaxSlots));
  at = end;
  return n;
}

/// `text` with every (group)*n and x*n written out and ',' dropped.
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
      const size_t close = text.find(')', at);
      const size_t nested = text.find('(', at + 1);
      if (close == std::string::npos || (nested != std::string::npos && nested < close))
        throw ScenarioError(path, "the '(' at character " + std::to_string(at) + " is not closed before another "
                                  "opens (groups do not nest)");
      const std::string group = unrolled(text.substr(at + 1, close - at - 1), path);  // its x*n, as Megatron
      at = close + 1;
      grow(group, repeat_count(text, at, path));
    } else if (c == ')') {
      throw ScenarioError(path, "')' at character " + std::to_string(at) + " closes no group");
    } else {
      ++at;
      grow(std::string(1, c), repeat_count(text, at, path));
    }
  }
  return out;
}
}  // namespace

std::vector<LayoutChunk> parse_pipeline_layout(const std::string& layout, const std::string& path) {
  std::vector<LayoutChunk> chunks(1);
  bool any = false, ended = false;  // a slot seen; the loss seen
  for (char c : unrolled(layout, path)) {
    LayoutChunk& k = chunks.back();
    if (ended && c != '|') throw ScenarioError(path, "L (the loss) must be the last slot");
    if (c == 'E' && any) throw ScenarioError(path, "E (the embedding) must be the first slot, once");
    any = any || c != '|';
    switch (c) {
      case '|': chunks.emplace_back(); break;
      case 't': ++k.layers; break;
      case 'm': ++k.mtp_layers; break;
      case 'E': k.embedding = true; break;
      case 'L': k.loss = ended = true; break;
      default:
        throw ScenarioError(path, std::string("'") + c + "' is not a layout character (E embedding, t transformer "
                                  "layer, m MTP layer, L loss; '|' ends a chunk, x*n and (...)*n repeat, ',' is "
                                  "ignored)");
    }
  }
  return chunks;
}

}  // namespace llmsim::strategy
