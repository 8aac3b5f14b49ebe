#include "llmsim/scenario/families.hpp"

#include <algorithm>
#include <map>
#include <stdexcept>

namespace llmsim::scenario {

namespace {
/// A function, not a global: families register during static initialisation, from other files.
std::map<std::string, Family>& registry() {
  static std::map<std::string, Family> all;
  return all;
}
}  // namespace

std::vector<Family> families() {
  std::vector<Family> out;
  for (const auto& [path, f] : registry()) out.push_back(f);
  std::stable_sort(out.begin(), out.end(), [](const Family& a, const Family& b) { return a.order < b.order; });
  return out;
}

FamilyRegistration::FamilyRegistration(Family family) : path_(family.path()) {
  if (!registry().emplace(path_, std::move(family)).second) throw std::logic_error("duplicate family " + path_);
}

FamilyRegistration::~FamilyRegistration() { registry().erase(path_); }

const StrategyChoice& Scenario::choice(const std::string& path) const {
  const auto it = choices.find(path);
  if (it == choices.end()) throw std::logic_error("scenario " + name + " has no family " + path);
  return it->second;
}

}  // namespace llmsim::scenario
