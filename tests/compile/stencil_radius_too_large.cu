#include <tilecraft/device/stencil.cuh>
// stencil_1d supports radii 1 ... 16.
void f(float* out, const float* in) {
  tilecraft::StencilWeights<float, 17> w{};
  (void)tilecraft::stencil_1d(out, in, 100, w);
}
