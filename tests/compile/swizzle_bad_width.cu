#include <tilecraft/memory/shared_tile.cuh>
// 24 floats per row is not a multiple of the 32-element XOR period.
__global__ void k(float* o) {
  __shared__ tilecraft::SharedMatrix<float, 8, 48, tilecraft::Swizzled<>> t;
  o[0] = t(0, 0);
}
