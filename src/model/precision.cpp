#include "llmsim/model/precision.hpp"

#include <array>

#include "llmsim/util/error.hpp"

namespace llmsim::model {
namespace {

struct Row {
  const char* name;
  double bytes;
  PrecisionKind kind;
};

// In the order of enum Precision (header table for the sources).
constexpr std::array<Row, kPrecisionCount> kTable = {{
    {"fp64", 8, PrecisionKind::Storage},
    {"fp32", 4, PrecisionKind::Storage},
    {"tf32", 4, PrecisionKind::ComputeOnly},
    {"bf16", 2, PrecisionKind::Storage},
    {"fp16", 2, PrecisionKind::Storage},
    {"fp8", 1, PrecisionKind::Storage},
    {"int8", 1, PrecisionKind::Storage},
    {"mxfp8", 1 + 1.0 / 32, PrecisionKind::BlockScaled},
    {"nvfp4", 0.5 + 1.0 / 16, PrecisionKind::BlockScaled},
}};

const Row& row(Precision p) { return kTable[static_cast<size_t>(p)]; }

std::string joined(const std::vector<std::string>& names) {
  std::string out;
  for (const auto& n : names) out += (out.empty() ? "" : ", ") + n;
  return out;
}

}  // namespace

const std::vector<std::string>& precision_names() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> out;
    for (const auto& r : kTable) out.emplace_back(r.name);
    return out;
  }();
  return names;
}

Precision precision_from_name(const std::string& name, const std::string& path) {
  for (size_t i = 0; i < kTable.size(); ++i)
    if (name == kTable[i].name) return static_cast<Precision>(i);
  throw ScenarioError(path, "unknown precision \"" + name + "\" (one of " + joined(precision_names()) + ")");
}

const char* precision_name(Precision p) { return row(p).name; }
double bytes_per_element(Precision p) { return row(p).bytes; }
PrecisionKind precision_kind(Precision p) { return row(p).kind; }
const char* peak_key(Precision p) { return row(p).name; }

double gradient_bytes_per_param(Precision training, bool fp32_main_grads) {
  return training == Precision::Bf16 && fp32_main_grads ? 4 : bytes_per_element(training);
}

bool has_peak(const scenario::Hardware& hw, Precision p) { return hw.peak_flops.count(peak_key(p)) > 0; }

double peak_flops(const scenario::Hardware& hw, Precision p, const std::string& path) {
  const auto it = hw.peak_flops.find(peak_key(p));
  if (it != hw.peak_flops.end()) return it->second;
  std::vector<std::string> listed;
  for (const auto& [key, value] : hw.peak_flops) listed.push_back(key);
  throw ScenarioError(path, "the " + hw.name + " preset has no " + peak_key(p) + " peak (its tensor cores do not run " +
                                precision_name(p) + "; hardware.peak_TFLOPS lists " + joined(listed) + ")");
}

Precision Fp8::gemm_precision() const {
  switch (recipe) {
    case Fp8Recipe::None: return high;
    case Fp8Recipe::Delayed:
    case Fp8Recipe::Current: return Precision::Fp8;
    case Fp8Recipe::Mxfp8: return Precision::Mxfp8;
    case Fp8Recipe::Nvfp4: return Precision::Nvfp4;
  }
  return high;
}

const std::vector<std::string>& fp8_recipe_names() {
  static const std::vector<std::string> names = {"none", "fp8-delayed", "fp8-cs", "mxfp8", "nvfp4"};
  return names;
}

Fp8Recipe fp8_recipe_from_name(const std::string& name, const std::string& path) {
  const auto& names = fp8_recipe_names();
  for (size_t i = 0; i < names.size(); ++i)
    if (name == names[i]) return static_cast<Fp8Recipe>(i);
  throw ScenarioError(path, "unknown FP8 recipe \"" + name + "\" (one of " + joined(names) + ")");
}

}  // namespace llmsim::model
