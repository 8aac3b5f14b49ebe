// The offline workload (serving/workload.hpp): `requests` requests of fixed lengths, all queued at time 0, as
// offline throughput benchmarks run them (trtllm-bench throughput, vLLM benchmark_throughput).
#include "limited_source.hpp"
#include "llmsim/util/limits.hpp"

namespace llmsim::serving {
namespace {

class Offline final : public LimitedSource {
 public:
  explicit Offline(const scenario::Params& p)
      : n_(p.integer("requests")), input_(p.integer("input_tokens")), output_(p.integer("output_tokens")) {}

 protected:
  std::vector<Request> unlimited(std::mt19937_64&, const WorkloadLimits&) const override {
    std::vector<Request> out(n_);
    for (auto& r : out) {
      r.prompt_tokens = input_;
      r.output_tokens = output_;
    }
    return out;
  }

 private:
  long n_;
  int input_, output_;
};

LLMSIM_REGISTER(WorkloadSource, "offline",
                "offline throughput: `requests` requests of input_tokens and output_tokens, all arriving at time 0",
                (scenario::FieldList{
                    scenario::Field::integer("requests", "requests queued at time 0").at_least(1).at_most(limits::kMaxRequests),
                    scenario::Field::integer("input_tokens", "prompt tokens of every request").at_least(1)
                        .at_most(10000000),
                    scenario::Field::integer("output_tokens", "output tokens of every request, including the first")
                        .at_least(1).at_most(10000000)}),
                [](const scenario::Params& p, const scenario::Scenario&) { return std::make_unique<Offline>(p); });

}  // namespace
}  // namespace llmsim::serving
