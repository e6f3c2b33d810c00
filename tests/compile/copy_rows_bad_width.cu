#include <tilecraft/memory/tile_copy.cuh>
// A 24-float row is 96 bytes: not 32 lanes x a power-of-two vector, so TileMapping::rows
// cannot move it in one warp instruction.
__global__ void k(const float* in) {
  __shared__ tilecraft::SharedMatrix<float, 8, 24> t;
  tilecraft::copy_tile<128, tilecraft::TileCopy<tilecraft::CacheHint::normal, tilecraft::TileMapping::rows>>(
      t, tilecraft::MatrixRef<const float>{in, 8, 24, 24}, 0, 0);
}
