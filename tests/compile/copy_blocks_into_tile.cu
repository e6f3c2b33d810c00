#include <tilecraft/memory/tile_copy.cuh>
// TileMapping::transposed_blocks only stores transposed views to global memory; a tile load
// has nothing to transpose.
__global__ void k(const float* in) {
  __shared__ tilecraft::SharedMatrix<float, 32, 32, tilecraft::Swizzled<16, 4>> t;
  using Blocks = tilecraft::TileCopy<tilecraft::CacheHint::normal, tilecraft::TileMapping::transposed_blocks>;
  tilecraft::copy_tile<128, Blocks>(t, tilecraft::MatrixRef<const float>{in, 32, 32, 32}, 0, 0);
}
