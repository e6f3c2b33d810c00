#include <tilecraft/memory/tile_copy.cuh>
__global__ void k(const float* in) {
  __shared__ tilecraft::SharedTile<float, 32, 1> t;
  tilecraft::copy_tile<2048>(t, tilecraft::MatrixRef<const float>{in, 32, 32, 32}, 0, 0);
}
