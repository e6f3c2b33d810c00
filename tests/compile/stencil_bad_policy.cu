#include <tilecraft/device/stencil.cuh>
// Threads must fill whole warps.
void f(float* out, const float* in) {
  tilecraft::StencilWeights<float, 2> w{};
  (void)tilecraft::stencil_1d<2, tilecraft::StencilPolicy<100>>(out, in, 100, w);
}
