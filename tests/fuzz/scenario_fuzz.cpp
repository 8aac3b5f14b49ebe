// libFuzzer target over the scenario reader, loader and validator (docs/hardening.md; built by -DLLMSIM_FUZZ=ON,
// run by tools/fuzz.sh). An input is the bytes of a scenario file. A ScenarioError is the expected answer to bad
// input; anything else is a finding: another exception escaping (std::terminate), a crash, an ASan/UBSan report,
// a timeout or an out-of-memory, or SimGrid started by the checks (they must not need a platform). Three in four
// mutations change the input as a JSON tree (json_mutator.hpp), the others (and those of non-JSON text) its bytes.
#include <simgrid/s4u/Engine.hpp>
#include <spdlog/spdlog.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <nlohmann/json.hpp>
#include <string>

#include "json_mutator.hpp"
#include "llmsim/scenario/json_text.hpp"
#include "llmsim/scenario/loader.hpp"
#include "llmsim/util/error.hpp"

namespace {

/// The one step from input bytes to a checked scenario, as `llmsim validate` takes it: parse the text strictly,
/// then resolve it with relative file names against the shipped scenarios' folder LLMSIM_FUZZ_SOURCE_DIR.
/// Throws ScenarioError for bad input.
void check_scenario_bytes(const std::string& text) {
  llmsim::scenario::resolve(llmsim::scenario::parse_json_text(text, "<fuzz input>"), LLMSIM_FUZZ_SOURCE_DIR);
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  spdlog::set_level(spdlog::level::off);  // warnings of accepted inputs would flood the fuzzer's output
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  try {
    check_scenario_bytes(std::string(reinterpret_cast<const char*>(data), size));
  } catch (const llmsim::ScenarioError&) {
    // bad input, reported as one error: the expected outcome
  }
  if (simgrid::s4u::Engine::has_instance()) {
    std::fputs("finding: checking a scenario started SimGrid\n", stderr);
    std::abort();
  }
  return 0;
}

extern "C" size_t LLVMFuzzerMutate(uint8_t* data, size_t size, size_t max_size);

namespace {
size_t copy_out(const std::string& text, uint8_t* out, size_t max_size) {
  if (text.empty() || text.size() > max_size) return 0;
  std::memcpy(out, text.data(), text.size());
  return text.size();
}
}  // namespace

extern "C" size_t LLVMFuzzerCustomMutator(uint8_t* data, size_t size, size_t max_size, unsigned seed) {
  if (seed % 4 != 0) {
    const std::string text(reinterpret_cast<const char*>(data), size);
    if (const size_t n = copy_out(llmsim::fuzz::mutate_json(text, seed), data, max_size)) return n;
  }
  return LLVMFuzzerMutate(data, size, max_size);
}

extern "C" size_t LLVMFuzzerCustomCrossOver(const uint8_t* data1, size_t size1, const uint8_t* data2, size_t size2,
                                            uint8_t* out, size_t max_out_size, unsigned seed) {
  const std::string first(reinterpret_cast<const char*>(data1), size1);
  const std::string second(reinterpret_cast<const char*>(data2), size2);
  return copy_out(llmsim::fuzz::cross_json(first, second, seed), out, max_out_size);
}
