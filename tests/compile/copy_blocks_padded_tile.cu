#include <tilecraft/memory/tile_copy.cuh>
// TileMapping::transposed_blocks reads 16-byte chunks of the tile's rows: a tile padded by one
// float has rows that start 4 bytes apart from 16-byte alignment.
__global__ void k(float* out) {
  __shared__ tilecraft::SharedTile<float, 32, 1> t;
  using Blocks = tilecraft::TileCopy<tilecraft::CacheHint::normal, tilecraft::TileMapping::transposed_blocks>;
  tilecraft::copy_tile<128, Blocks>(tilecraft::MatrixRef<float>{out, 32, 32, 32}, 0, 0, tilecraft::transposed(t));
}
