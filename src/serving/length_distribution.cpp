#include "llmsim/serving/length_distribution.hpp"

#include <algorithm>
#include <cmath>

#include "llmsim/util/error.hpp"
#include "trace_file.hpp"

namespace llmsim::serving {
namespace {

using scenario::Field;

constexpr double kMaxZipfValues = 1e7;
constexpr double kMaxCdfTokens = 2147483647.0;

/// The keys besides "distribution"; each one's default is its "not set" value.
scenario::FieldList parameter_fields() {
  return {
      Field::integer("tokens", "fixed: the length (>= 1); 0 = not set").at_least(0).with_default(0),
      Field::integer("min", "uniform, zipf: the shortest length (>= 1); 0 = not set").at_least(0).with_default(0),
      Field::integer("max", "uniform, zipf: the longest length (>= min); 0 = not set").at_least(0).with_default(0),
      Field::number("theta", "", "zipf: exponent (> 0); 0 = not set").at_least(0).with_default(0.0),
      Field::string("file", "cdf: CSV tokens,cumulative_probability, relative to the scenario file; \"\" = not set")
          .with_default(""),
  };
}

struct Distribution {
  const char* name;
  std::vector<std::string> keys;
};
/// In the order of LengthDistribution::Kind. A function, not a global: registrations in other files call
/// length_distribution_field() during static initialisation.
const std::vector<Distribution>& distributions() {
  static const std::vector<Distribution> all = {
      {"fixed", {"tokens"}}, {"uniform", {"min", "max"}}, {"zipf", {"min", "max", "theta"}}, {"cdf", {"file"}}};
  return all;
}

std::string join(const std::vector<std::string>& v) {
  std::string out;
  for (const auto& s : v) out += (out.empty() ? "" : ", ") + s;
  return out;
}

/// Whether key `f` of `v` differs from its "not set" default.
bool is_set(const scenario::Params& v, const Field& f) {
  if (f.type == scenario::FieldType::Integer) return v.integer(f.key) != std::get<long long>(*f.default_value);
  if (f.type == scenario::FieldType::Number) return v.number(f.key) != std::get<double>(*f.default_value);
  return v.text(f.key) != std::get<std::string>(*f.default_value);
}

/// Every key of the chosen distribution is set and no other one is.
void check_keys(const scenario::Params& v, const std::string& path, const Distribution& d) {
  for (const auto& f : parameter_fields()) {
    const bool set = is_set(v, f);
    const bool used = std::count(d.keys.begin(), d.keys.end(), f.key) > 0;
    if (used && !set)
      throw ScenarioError(path + "/" + f.key, std::string("required by the ") + d.name + " distribution (" + f.help + ")");
    if (!used && set)
      throw ScenarioError(path + "/" + f.key, std::string("not a key of the ") + d.name + " distribution (its keys: " +
                                                  join(d.keys) + ")");
  }
}

/// Reads a CDF file into (tokens, cumulative) points; see the header for the rules.
void read_cdf(const std::string& file, const std::string& path, std::vector<double>& tokens,
              std::vector<double>& cumulative) {
  TraceFile in(file, path);
  const std::string columns = "tokens,cumulative_probability";
  in.expect_header(columns);
  while (in.next()) {
    const auto cell = in.cells(2, columns);
    const double t = in.number(cell[0], "tokens"), p = in.number(cell[1], "cumulative_probability");
    if (t < 0 || t > kMaxCdfTokens) in.fail("tokens " + cell[0] + " is out of range (0 to 2147483647)");
    if (p < 0 || p > 1) in.fail("cumulative_probability " + cell[1] + " is out of range (0 to 1)");
    if (t < 1 && p > 0)  // a length is at least 1 token: 0 may only anchor the CDF's start
      in.fail("tokens " + cell[0] + " has cumulative_probability " + cell[1] + ": lengths are at least 1 token, so a "
              "point below 1 may only have probability 0");
    if (!tokens.empty() && t <= tokens.back()) in.fail("tokens " + cell[0] + " is not above the previous line's");
    if (!cumulative.empty() && p < cumulative.back())
      in.fail("cumulative_probability " + cell[1] + " is below the previous line's (a CDF does not decrease)");
    tokens.push_back(t);
    cumulative.push_back(p);
  }
  if (tokens.empty()) throw ScenarioError(path, file + " has a header but no point");
  if (std::fabs(cumulative.back() - 1) > 1e-6) in.fail("the last cumulative_probability must be 1");
  cumulative.back() = 1;
}

}  // namespace

LengthDistribution::LengthDistribution(const scenario::Params& v, const std::string& path, const std::string& base_dir) {
  const std::string name = v.text("distribution");
  const auto& all = distributions();
  const auto d = std::find_if(all.begin(), all.end(), [&](const Distribution& x) { return name == x.name; });
  if (d == all.end()) throw ScenarioError(path + "/distribution", "unknown distribution \"" + name + "\"");
  check_keys(v, path, *d);
  kind_ = Kind(d - all.begin());
  if (kind_ == Kind::Fixed) min_ = max_ = v.integer("tokens");
  if (kind_ == Kind::Uniform || kind_ == Kind::Zipf) {
    min_ = v.integer("min");
    max_ = v.integer("max");
    if (max_ < min_)
      throw ScenarioError(path + "/max", "max " + std::to_string(max_) + " is below min " + std::to_string(min_));
  }
  if (kind_ == Kind::Zipf) {
    if (double(max_) - min_ + 1 > kMaxZipfValues)
      throw ScenarioError(path + "/max", "the zipf range min..max has more than 10,000,000 values");
    const double theta = v.number("theta");
    double sum = 0;
    for (int rank = 1; rank <= max_ - min_ + 1; ++rank) cumulative_.push_back(sum += std::pow(rank, -theta));
  }
  if (kind_ == Kind::Cdf)
    read_cdf(resolve_path(v.text("file"), base_dir), path + "/file", tokens_, cumulative_);
}

int LengthDistribution::draw(std::mt19937_64& rng) const {
  if (kind_ == Kind::Fixed) return min_;
  const double u = std::uniform_real_distribution<double>(0, 1)(rng);
  if (kind_ == Kind::Uniform) {
    const long long values = static_cast<long long>(max_) - min_ + 1;
    return static_cast<int>(min_ + std::min(values - 1, static_cast<long long>(u * values)));
  }
  // The first point whose cumulative value exceeds the draw.
  const auto it = std::upper_bound(cumulative_.begin(), cumulative_.end(), u * cumulative_.back());
  const size_t i = std::min<size_t>(it - cumulative_.begin(), cumulative_.size() - 1);
  if (kind_ == Kind::Zipf) return min_ + static_cast<int>(i);
  if (i == 0) return std::max(1, static_cast<int>(std::lround(tokens_[0])));
  const double f = (u - cumulative_[i - 1]) / (cumulative_[i] - cumulative_[i - 1]);
  return std::max(1, static_cast<int>(std::lround(tokens_[i - 1] + f * (tokens_[i] - tokens_[i - 1]))));
}

scenario::Field length_distribution_field(const std::string& key, const std::string& help) {
  std::vector<std::string> names;
  std::string keys;
  for (const auto& d : distributions()) {
    names.push_back(d.name);
    keys += (keys.empty() ? "" : ", ") + std::string(d.name) + " (" + join(d.keys) + ")";
  }
  scenario::FieldList children = {Field::choice("distribution", names, "the distribution and its keys: " + keys)};
  for (auto& f : parameter_fields()) children.push_back(std::move(f));
  return Field::object(key, std::move(children), help);
}

}  // namespace llmsim::serving
