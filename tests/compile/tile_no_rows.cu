#include <tilecraft/memory/shared_tile.cuh>
// A tile of no rows.
__global__ void k(float* o) {
  __shared__ tilecraft::SharedMatrix<float, 0, 32> t;
  o[0] = t(0, 0);
}
