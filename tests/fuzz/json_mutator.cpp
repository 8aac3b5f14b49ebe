#include "json_mutator.hpp"

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <iterator>
#include <nlohmann/json.hpp>
#include <random>
#include <vector>

extern "C" size_t LLVMFuzzerMutate(uint8_t* data, size_t size, size_t max_size);  // libFuzzer's byte mutator

namespace llmsim::fuzz {
namespace {

using nlohmann::json;

/// Values at the edges of what fields accept: zero, signs, 32- and 64-bit limits, extreme doubles, every JSON
/// type, and names and paths that a preset or file field must refuse cleanly.
const std::vector<json>& edge_values() {
  static const std::vector<json> values = [] {
    auto v = json::parse(R"([0, -1, 1, 2, 3, 1000001, 2147483647, 2147483648, -2147483649, 9223372036854775807,
        18446744073709551615, 1e308, -1e308, 5e-324, 0.5, -0.0, true, false, null, "", "auto", "/dev/zero", "/",
        "..", "a\nb", {}, [], [1], {"name": ""}])").get<std::vector<json>>();
    v.emplace_back(std::string(300, 'a'));
    return v;
  }();
  return values;
}

size_t pick(size_t n, std::mt19937& rng) { return std::uniform_int_distribution<size_t>(0, n - 1)(rng); }

/// Every node of the tree, parents before their children.
void collect(json& node, std::vector<json*>& out) {
  out.push_back(&node);
  if (node.is_structured())
    for (auto& child : node) collect(child, out);
}

std::vector<json*> nodes_of(json& doc) {
  std::vector<json*> out;
  collect(doc, out);
  return out;
}

/// `s` changed by libFuzzer's byte mutator (which also inserts dictionary words).
std::string mutate_bytes(std::string s) {
  const size_t size = s.size();
  s.resize(size * 2 + 16);
  s.resize(LLVMFuzzerMutate(reinterpret_cast<uint8_t*>(&s[0]), size, s.size()));
  return s;
}

/// A number one up or down (integers well inside 64 bits), else scaled by 10^-12 .. 10^12 and maybe negated.
json nudge(const json& number, std::mt19937& rng) {
  const double x = number.get<double>();
  if (number.is_number_integer() && std::fabs(x) < 4e18 && pick(2, rng))
    return number.get<long long>() + (pick(2, rng) ? 1 : -1);
  return x * std::pow(10.0, static_cast<double>(pick(25, rng)) - 12) * (pick(2, rng) ? 1 : -1);
}

/// Changes `node` in one of six ways; false if the way drawn does not apply to it.
bool change(json& node, const std::vector<json*>& nodes, std::mt19937& rng) {
  switch (pick(6, rng)) {
    case 0:
      node = edge_values()[pick(edge_values().size(), rng)];
      return true;
    case 1:
      if (!node.is_number()) return false;
      node = nudge(node, rng);
      return true;
    case 2:
      if (!node.is_string()) return false;
      node = mutate_bytes(node.get<std::string>());
      return true;
    case 3: {  // rename a key
      if (!node.is_object() || node.empty()) return false;
      const auto it = std::next(node.begin(), static_cast<std::ptrdiff_t>(pick(node.size(), rng)));
      const std::string key = it.key();
      json value = std::move(*it);
      node.erase(key);
      node[mutate_bytes(key)] = std::move(value);
      return true;
    }
    case 4:  // remove a member or an element
      if (!node.is_structured() || node.empty()) return false;
      node.erase(std::next(node.begin(), static_cast<std::ptrdiff_t>(pick(node.size(), rng))));
      return true;
    default:
      node = json(*nodes[pick(nodes.size(), rng)]);  // copied first: the source may lie inside `node`
      return true;
  }
}

std::string dump(const json& doc) { return doc.dump(-1, ' ', false, json::error_handler_t::replace); }

}  // namespace

std::string mutate_json(const std::string& text, unsigned seed) {
  json doc = json::parse(text, nullptr, false);
  if (doc.is_discarded()) return "";
  std::mt19937 rng(seed);
  const auto nodes = nodes_of(doc);
  for (int attempt = 0; attempt < 16; ++attempt)
    if (change(*nodes[pick(nodes.size(), rng)], nodes, rng)) break;
  return dump(doc);
}

std::string cross_json(const std::string& first, const std::string& second, unsigned seed) {
  json a = json::parse(first, nullptr, false), b = json::parse(second, nullptr, false);
  if (a.is_discarded() || b.is_discarded()) return "";
  std::mt19937 rng(seed);
  const auto into = nodes_of(a), from = nodes_of(b);
  const json& source = *from[pick(from.size(), rng)];
  json& target = *into[pick(into.size(), rng)];
  if (target.is_object() && source.is_object() && !source.empty() && pick(2, rng)) {
    const auto it = std::next(source.begin(), static_cast<std::ptrdiff_t>(pick(source.size(), rng)));
    target[it.key()] = *it;  // a member of `second` joins an object of `first`
  } else {
    target = source;
  }
  return dump(a);
}

}  // namespace llmsim::fuzz
