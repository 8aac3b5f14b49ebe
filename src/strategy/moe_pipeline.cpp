#include "llmsim/strategy/moe_pipeline.hpp"
#include "llmsim/strategy/family.hpp"

#include "llmsim/util/error.hpp"

namespace llmsim::strategy {
namespace {

class Fixed final : public MoePipeline {
 public:
  explicit Fixed(MoeLayout layout, bool streaming = false, bool search = false)
      : layout_(layout), streaming_(streaming), search_(search) {}
  MoeLayout layout() const override { return layout_; }
  bool streaming() const override { return streaming_; }
  bool searches_gradient_chunk() const override { return search_; }

 private:
  MoeLayout layout_;
  bool streaming_, search_;
};

const scenario::Field kChunks =
    scenario::Field::integer("chunks", "pipelining degree R: parts of a MoE layer's tokens").at_least(1).at_most(64)
        .with_default(2);

/// The chunked pipelines pipeline the all-to-alls of a training run: not on a moe-chiplet system, and not more
/// chunks than a micro-batch has tokens. (That they do not meet a braided schedule is checked where both exist:
/// strategy/training_strategies.hpp.)
void check_training_pipeline(const scenario::Scenario& s, const std::string& name, int chunks) {
  if (s.kind == "moe-chiplet")
    throw ScenarioError("/strategies/moe_pipeline/name",
                        name + " pipelines expert-parallel all-to-alls of a training run; a moe-chiplet system takes "
                               "vanilla-ep or streaming");
  if (chunks > double(s.training.micro_batch) * s.training.seq_len)
    throw ScenarioError("/strategies/moe_pipeline/chunks",
                        "more chunks than tokens in a micro-batch (" +
                            std::to_string(s.training.micro_batch * s.training.seq_len) + ")");
}

LLMSIM_REGISTER(MoePipeline, "vanilla-ep", "dispatch, experts, combine one after another", {},
                [](const scenario::Params&, const scenario::Scenario&) { return std::make_unique<Fixed>(MoeLayout{}); });

LLMSIM_REGISTER(MoePipeline, "tutel",
                "R chunks: expert compute of one chunk overlaps the all-to-alls of the others (Tutel)", {kChunks},
                [](const scenario::Params& p, const scenario::Scenario& s) {
                  MoeLayout layout;
                  layout.chunks = p.integer("chunks");
                  check_training_pipeline(s, "tutel", layout.chunks);
                  return std::make_unique<Fixed>(layout);
                });

LLMSIM_REGISTER(MoePipeline, "schemoe",
                "tutel's R chunks with ScheMoE's Pipe-A2A: intra- and inter-node parts of each all-to-all on two "
                "streams",
                {kChunks}, [](const scenario::Params& p, const scenario::Scenario& s) {
                  MoeLayout layout;
                  layout.chunks = p.integer("chunks");
                  layout.split_all_to_all = true;
                  check_training_pipeline(s, "schemoe", layout.chunks);
                  return std::make_unique<Fixed>(layout);
                });

LLMSIM_REGISTER(MoePipeline, "flowmoe",
                "FlowMoE: attention, gating, dispatch, experts, combine in one R-chunk pipeline; per-layer gradient "
                "all-reduce in S_p chunks that yield to all-to-alls",
                (scenario::FieldList{kChunks, scenario::Field::number("allreduce_chunk_bytes", "bytes",
                                                                      "S_p: bytes per gradient all-reduce chunk; "
                                                                      "\"auto\" searches it (golden section over "
                                                                      "128 KiB - 16 MiB)")
                                                  .at_least(kMinGradientChunkBytes)
                                                  .at_most(kMaxGradientChunkBytes)
                                                  .or_auto()
                                                  .with_default("auto")}),
                [](const scenario::Params& p, const scenario::Scenario& s) {
                  MoeLayout layout;
                  layout.chunks = p.integer("chunks");
                  layout.attention_in_pipeline = true;
                  check_training_pipeline(s, "flowmoe", layout.chunks);
                  if (s.parallelism.tp > 1)
                    throw ScenarioError("/parallelism/tp",
                                        "flowmoe pipelines attention chunks of a data- and expert-parallel layer "
                                        "(FlowMoE's setting); it needs tp 1");
                  const bool search = p.is_auto("allreduce_chunk_bytes");
                  // Before the search has chosen S_p: the start of FlowMoE's search (4 MiB).
                  layout.gradient_chunk_bytes = search ? 4.0 * 1024 * 1024 : p.bytes("allreduce_chunk_bytes");
                  return std::make_unique<Fixed>(layout, false, search);
                });

LLMSIM_REGISTER(MoePipeline, "streaming",
                "Mozart streaming on a moe-chiplet system: pipelined micro-batches, hottest-first prefetched expert "
                "weights",
                {}, [](const scenario::Params&, const scenario::Scenario& s) {
                  if (s.kind != "moe-chiplet")
                    throw ScenarioError("/strategies/moe_pipeline/name",
                                        "streaming models Mozart's chiplet system: it needs kind \"moe-chiplet\"");
                  return std::make_unique<Fixed>(MoeLayout{}, true);
                });

}  // namespace

std::unique_ptr<MoePipeline> make_moe_pipeline(const scenario::Scenario& s) {
  return MoePipelineRegistry::instance().make(s.strategies.moe_pipeline, s, "/strategies/moe_pipeline", "MoE pipeline");
}

LLMSIM_FAMILY(MoePipeline, "strategies", "moe_pipeline", "vanilla-ep", "MoE dispatch/expert/combine overlap", 50,
              {"strategies", "moe_pipeline", 3}, [](const scenario::Scenario& s) { make_moe_pipeline(s); });

}  // namespace llmsim::strategy
