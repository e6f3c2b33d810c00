#include <tilecraft/device/stencil.cuh>
// stencil_1d supports radii 1 ... 16.
void f(const float* in, float* out) {
  tilecraft::StencilWeights<float, 17> w{};
  (void)tilecraft::stencil_1d(in, out, 100, w);
}
