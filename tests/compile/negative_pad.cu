#include <tilecraft/memory/shared_tile.cuh>
__global__ void k(float* o) {
  __shared__ tilecraft::SharedTile<float, 32, -1> t;
  o[0] = t(0, 0);
}
