#include <tilecraft/memory/shared_tile.cuh>
// Chunks of 4 bytes cannot hold an 8-byte double.
__global__ void k(double* o) {
  __shared__ tilecraft::SharedMatrix<double, 8, 32, tilecraft::Swizzled<4>> t;
  o[0] = t(0, 0);
}
