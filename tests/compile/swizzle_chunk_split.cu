#include <tilecraft/memory/shared_tile.cuh>
// Rows of 20 floats (80 bytes) do not hold a whole number of 32-byte chunks.
__global__ void k(float* o) {
  __shared__ tilecraft::SharedMatrix<float, 8, 20, tilecraft::Swizzled<32>> t;
  o[0] = t(0, 0);
}
