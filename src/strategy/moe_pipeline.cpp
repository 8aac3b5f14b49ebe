#include "llmsim/strategy/moe_pipeline.hpp"

#include "llmsim/strategy/pipeline_schedule.hpp"
#include "llmsim/util/error.hpp"

namespace llmsim::strategy {
namespace {

class Chunked final : public MoePipeline {
 public:
  explicit Chunked(int chunks, bool streaming = false) : chunks_(chunks), streaming_(streaming) {}
  int chunks() const override { return chunks_; }
  bool streaming() const override { return streaming_; }

 private:
  int chunks_;
  bool streaming_;
};

const scenario::FieldList kTutelParams = {
    scenario::Field::integer("chunks", "pipelining degree R: parts of a MoE layer's tokens").at_least(1).at_most(64)
        .with_default(2)};

LLMSIM_REGISTER(MoePipeline, "vanilla-ep", "dispatch, experts, combine one after another", {},
                [](const nlohmann::json&, const scenario::Scenario&) { return std::make_unique<Chunked>(1); });
LLMSIM_REGISTER(MoePipeline, "tutel",
                "R chunks: expert compute of one chunk overlaps the all-to-alls of the others (Tutel)", kTutelParams,
                [](const nlohmann::json& p, const scenario::Scenario& s) {
                  const int chunks = p.at("chunks").get<int>();
                  if (s.kind == "moe-chiplet")
                    throw ScenarioError("/strategies/moe_pipeline/name",
                                        "tutel pipelines expert-parallel all-to-alls of a training run; a moe-chiplet "
                                        "system takes vanilla-ep or streaming");
                  const auto schedule = make_pipeline_schedule(s);
                  for (const auto& t : schedule->stage_order({s.parallelism.pp, 0, s.training.micro_batches_per_pipeline(s.parallelism.dp)}))
                    if (t.braided && chunks > 1)
                      throw ScenarioError("/strategies/moe_pipeline/chunks",
                                          "pipelined MoE chunks do not combine with a braided schedule (" +
                                              s.strategies.pipeline_schedule.name + "); use chunks 1 or another schedule");
                  return std::make_unique<Chunked>(chunks);
                });

LLMSIM_REGISTER(MoePipeline, "streaming",
                "Mozart streaming on a moe-chiplet system: pipelined micro-batches, hottest-first prefetched expert "
                "weights",
                {}, [](const nlohmann::json&, const scenario::Scenario& s) {
                  if (s.kind != "moe-chiplet")
                    throw ScenarioError("/strategies/moe_pipeline/name",
                                        "streaming models Mozart's chiplet system: it needs kind \"moe-chiplet\"");
                  return std::make_unique<Chunked>(1, true);
                });

}  // namespace

std::unique_ptr<MoePipeline> make_moe_pipeline(const scenario::Scenario& s) {
  return MoePipelineRegistry::instance().make(s.strategies.moe_pipeline, s, "/strategies/moe_pipeline", "MoE pipeline");
}

}  // namespace llmsim::strategy
