// The poisson and gamma workloads (serving/workload.hpp): a renewal process of arrivals with lengths drawn from
// the prompt and output distributions (serving/length_distribution.hpp).
#include <cmath>

#include "limited_source.hpp"
#include "llmsim/serving/length_distribution.hpp"
#include "llmsim/util/error.hpp"
#include "llmsim/util/limits.hpp"

namespace llmsim::serving {
namespace {

constexpr size_t kMaxGenerated = 10000000;

/// Arrivals with independent gaps of mean 1 / rate_rps; each request draws its gap, then its prompt length,
/// then its output length. Generates until the limits drop a request, so it needs max_requests or duration_s.
class Renewal : public LimitedSource {
 public:
  Renewal(const scenario::Params& p, const scenario::Scenario& s)
      : rate_(p.per_second("rate_rps")),
        prompt_(p.object("prompt"), "/serving/workload/prompt", s.source_dir),
        output_(p.object("output"), "/serving/workload/output", s.source_dir) {}

 protected:
  std::vector<Request> unlimited(std::mt19937_64& rng, const WorkloadLimits& limits) const override {
    if (limits.duration <= 0 && limits.max_requests <= 0)
      throw ScenarioError("/serving/max_requests",
                          "a poisson/gamma workload needs serving.max_requests or serving.duration_s (both are 0)");
    if (limits.max_requests > static_cast<long>(kMaxGenerated))
      throw ScenarioError("/serving/max_requests", "at most 10,000,000 requests for a generated workload");
    std::vector<Request> out;
    for (double t = 0;;) {
      Request r;
      r.arrival = t += gap(rng);
      r.prompt_tokens = prompt_.draw(rng);
      r.output_tokens = output_.draw(rng);
      if (beyond(limits, r.arrival, out.size())) return out;
      if (out.size() == kMaxGenerated)
        throw ScenarioError("/serving/duration_s", "more than 10,000,000 requests arrive before it: lower "
                                                   "serving.duration_s or set serving.max_requests");
      out.push_back(std::move(r));
    }
  }
  virtual double gap(std::mt19937_64& rng) const { return std::exponential_distribution<double>(rate_)(rng); }
  double rate_;  ///< [1/s]

 private:
  LengthDistribution prompt_, output_;
};

/// Gamma gaps of coefficient of variation cv: shape k = 1 / cv^2, scale 1 / (rate k), so the mean is 1 / rate.
class GammaRenewal final : public Renewal {
 public:
  GammaRenewal(const scenario::Params& p, const scenario::Scenario& s)
      : Renewal(p, s), shape_(std::pow(p.number("cv"), -2)) {}

 private:
  double gap(std::mt19937_64& rng) const override {
    return std::gamma_distribution<double>(shape_, 1 / (rate_ * shape_))(rng);
  }
  double shape_;
};

const scenario::Field kRate =
    scenario::Field::number("rate_rps", "1/s", "mean request rate (before serving.rate_scale)").above(0).at_most(1e6);
const scenario::Field kPrompt = length_distribution_field("prompt", "prompt length distribution [tokens]");
const scenario::Field kOutput =
    length_distribution_field("output", "output length distribution [tokens], including the first token");

LLMSIM_REGISTER(WorkloadSource, "poisson",
                "Poisson arrivals at rate_rps (exponential gaps), prompt and output lengths from distributions",
                (scenario::FieldList{kRate, kPrompt, kOutput}),
                [](const scenario::Params& p, const scenario::Scenario& s) { return std::make_unique<Renewal>(p, s); });
LLMSIM_REGISTER(WorkloadSource, "gamma",
                "arrivals at rate_rps with Gamma gaps of coefficient of variation cv (1 = Poisson, > 1 bursty)",
                (scenario::FieldList{kRate,
                                     scenario::Field::number("cv", "", "coefficient of variation of the gaps")
                                         .at_least(limits::kMinRate).at_most(100),
                                     kPrompt, kOutput}),
                [](const scenario::Params& p, const scenario::Scenario& s) { return std::make_unique<GammaRenewal>(p, s); });

}  // namespace
}  // namespace llmsim::serving
