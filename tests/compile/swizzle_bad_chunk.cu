#include <tilecraft/memory/shared_tile.cuh>
// Chunks of 12 bytes: not a power of two.
__global__ void k(float* o) {
  __shared__ tilecraft::SharedMatrix<float, 8, 96, tilecraft::Swizzled<12>> t;
  o[0] = t(0, 0);
}
