#include <tilecraft/memory/tile_copy.cuh>
// transposed_blocks only stores transposed views; an asynchronous load cannot use it.
using Blocks = tilecraft::TileCopy<tilecraft::CacheHint::normal, tilecraft::TileMapping::transposed_blocks>;
__global__ void k(const float* in) {
  __shared__ tilecraft::SharedMatrix<float, 64, 64, tilecraft::Swizzled<16, 4>> t;
  tilecraft::copy_tile_async<64, Blocks>(t, tilecraft::MatrixRef<const float>{in, 64, 64, 64}, 0, 0);
}
