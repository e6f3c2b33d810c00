#include <tilecraft/device/stencil.cuh>
// A Policy that is not a StencilPolicy is refused with the rule.
struct NotAPolicy {};
void f(const float* in, float* out) {
  tilecraft::StencilWeights<float, 2> w{};
  (void)tilecraft::stencil_1d<2, NotAPolicy>(in, out, 100, w);
}
