#pragma once
// Token lengths of generated requests: the `prompt` and `output` objects of the poisson and gamma workloads
// (serving/workload.hpp), {"distribution": <name>, <its keys>}:
//   fixed    tokens              every request has `tokens`
//   uniform  min, max            integers min..max inclusive, equally likely (mean (min + max) / 2)
//   zipf     min, max, theta     P(k) = (k - min + 1)^-theta / sum_{j=1}^{max-min+1} j^-theta for k = min..max
//                                (a Zipf law truncated to the range, theta > 0; the "zipf" length generator of
//                                Vidur, Agrawal et al., MLSys 2024); at most 10,000,000 values in the range
//   cdf      file                an empirical CDF: a CSV with the header tokens,cumulative_probability, token
//                                counts (>= 0) strictly increasing, probabilities non-decreasing in [0, 1], the
//                                last one 1 (within 1e-6). A draw u ~ U[0, 1) is inverted with linear
//                                interpolation between the points (u below the first probability gives the first
//                                token count) and rounded to the nearest integer, at least 1. A relative path
//                                resolves against the scenario file's directory.
// The keys of the other distributions keep their "not set" value (0, or "" for file): setting one, or leaving a
// key of the chosen distribution unset, is a ScenarioError naming its JSON path.
#include <random>
#include <string>
#include <vector>

#include "llmsim/scenario/params.hpp"
#include "llmsim/scenario/schema.hpp"

namespace llmsim::serving {

class LengthDistribution {
 public:
  /// `v`: the typed view of an object checked against length_distribution_field(); `path` its JSON pointer ("/serving/workload/
  /// prompt"); a relative cdf `file` resolves against `base_dir`. Throws ScenarioError (missing or foreign key,
  /// min > max, an unreadable CDF file: "<file>:<line>: ...").
  LengthDistribution(const scenario::Params& v, const std::string& path, const std::string& base_dir);

  /// One length in tokens (>= 1); fixed draws nothing from `rng`, the others one uniform number.
  int draw(std::mt19937_64& rng) const;

 private:
  enum class Kind { Fixed, Uniform, Zipf, Cdf };
  Kind kind_ = Kind::Fixed;
  int min_ = 1, max_ = 1;  ///< fixed: both `tokens`
  /// zipf: cumulative weights of min..max; cdf: the points (tokens_, cumulative_).
  std::vector<double> tokens_, cumulative_;
};

/// The schema field `key` of a length distribution (required object; `help` says what it sets).
scenario::Field length_distribution_field(const std::string& key, const std::string& help);

}  // namespace llmsim::serving
