#include <tilecraft/device/stencil.cuh>
// Threads must fill whole warps.
void f(const float* in, float* out) {
  tilecraft::StencilWeights<float, 2> w{};
  (void)tilecraft::stencil_1d<2, tilecraft::StencilPolicy<100>>(in, out, 100, w);
}
