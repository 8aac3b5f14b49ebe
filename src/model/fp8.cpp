#include "llmsim/model/fp8.hpp"

namespace llmsim::model {
namespace {

Kernel scaling(const std::string& name, double bytes) {
  Kernel k = elementwise(name, Category::Elementwise, bytes);
  k.kind = KernelKind::Fp8Scaling;
  return k;
}

/// Amax pass (if the recipe has one) and cast of `elements` high-precision elements to two FP8 copies.
std::vector<Kernel> casts(const std::string& what, double elements, const Fp8& f) {
  const double h = bytes_per_element(f.high), l = bytes_per_element(f.gemm_precision());
  std::vector<Kernel> out;
  if (f.amax_pass()) out.push_back(scaling(what + "_amax", h * elements));
  out.push_back(scaling(what + "_cast", (h + 2 * l) * elements));
  return out;
}

Kernel fp8_gemm(const Kernel& g, double a_elements, double b_elements, double out_elements) {
  Kernel k = g;
  k.bytes = bytes_per_element(g.fp8.gemm_precision()) * (a_elements + b_elements) +
            bytes_per_element(g.fp8.high) * out_elements;
  return k;
}

}  // namespace

std::vector<Kernel> linear(const std::string& name, const LayerShape& x, double tokens, double n, double k) {
  if (!x.fp8.enabled()) return {gemm(name, Category::Gemm, 1, tokens, n, k, x.precision)};
  std::vector<Kernel> out = casts(name + "_input", tokens * k, x.fp8);
  for (Kernel c : casts(name + "_weight", k * n * x.fp8.weight_share, x.fp8)) {
    c.launches = x.fp8.weight_share;
    out.push_back(c);
  }
  Kernel g = gemm(name, Category::Gemm, 1, tokens, n, k, x.fp8.gemm_precision());
  g.fp8 = x.fp8;
  out.push_back(fp8_gemm(g, tokens * k, k * n, tokens * n));
  return out;
}

std::vector<Kernel> fp8_gradient_casts(const Kernel& g) { return casts(g.name + "_grad", g.batch * g.m * g.n, g.fp8); }

Kernel fp8_dgrad(const Kernel& g) {
  Kernel k = fp8_gemm(g, g.m * g.n, g.k * g.n, g.m * g.k);
  k.name += "_dgrad";
  return k;
}

Kernel fp8_wgrad(const Kernel& g) { return fp8_gemm(g, g.m * g.k, g.m * g.n, g.k * g.n); }

double fp8_weight_copy_bytes(const Fp8& f) { return f.enabled() ? 2 * bytes_per_element(f.gemm_precision()) : 0; }

}  // namespace llmsim::model
