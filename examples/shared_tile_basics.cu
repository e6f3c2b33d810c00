// SharedTile in a user kernel: declare, fill cooperatively, read transposed, carve several
// tiles from dynamic shared memory, and ask the bank model at compile time.
#include <cstdio>
#include <vector>

#include <tilecraft/memory/bank_model.cuh>
#include <tilecraft/memory/carve.cuh>
#include <tilecraft/memory/shared_tile.cuh>
#include <tilecraft/memory/tile_copy.cuh>

#include "example_util.cuh"

using Padded = tilecraft::SharedTile<float, 32, 1>;                              // __shared__ float t[32][33]
using Plain = tilecraft::SharedTile<float, 32, 0>;                               // __shared__ float t[32][32]
using Swizzled = tilecraft::SharedMatrix<float, 32, 32, tilecraft::Swizzled<>>;  // no padding bytes

// The compile-time bank model: a warp reading one column.
static_assert(tilecraft::bank::column_wavefronts<Plain>() == 32, "unpadded: 32-way conflict");
static_assert(tilecraft::bank::column_wavefronts<Padded>() == 1, "padded: conflict-free");
static_assert(tilecraft::bank::column_wavefronts<Swizzled>() == 1, "swizzled: conflict-free");

// Each block transposes one 32 x 32 tile of a matrix through two carved tiles: the padded one
// for the transpose, the swizzled one holding a copy of the input (to show several tiles).
// The copy goes through a TileCopy policy: TileMapping::rows moves one whole 128-byte tile row
// per warp instruction (4 bytes a lane) instead of the default 16-byte vectors over 128-byte
// lines; the bank model proves both mappings conflict-free for this tile.
using RowCopy = tilecraft::TileCopy<tilecraft::CacheHint::normal, tilecraft::TileMapping::rows>;
static_assert(tilecraft::copy_tile_conflict_factor<Swizzled, tilecraft::TileMapping::rows>() == 1);
__global__ void two_tiles(const float* in, float* out, float* copy, int rows, int cols) {
  extern __shared__ __align__(16) unsigned char smem[];
  auto [t, s] = tilecraft::SharedCarve<Padded, Swizzled>::carve(smem);
  const tilecraft::MatrixRef<const float> src{in, rows, cols, cols};
  const std::int64_t r0 = blockIdx.y * 32, c0 = blockIdx.x * 32;
  tilecraft::copy_tile<256>(t, src, r0, c0);
  tilecraft::copy_tile<256, RowCopy>(s, src, r0, c0);
  __syncthreads();
  tilecraft::copy_tile<256>(tilecraft::MatrixRef<float>{out, cols, rows, rows}, c0, r0, tilecraft::transposed(t));
  tilecraft::copy_tile<256, RowCopy>(tilecraft::MatrixRef<float>{copy, rows, cols, cols}, r0, c0, s);
}

// The register-transposing drain: a tile that keeps 16-byte chunks (XOR-swizzled by groups of
// 4 rows) is filled with whole-row 16-byte vectors and stored transposed in 4 x 4 blocks, one
// 16-byte shared load and one 16-byte global store per 4 floats (the 4-byte transpose default).
using Quads = tilecraft::SharedMatrix<float, 32, 32, tilecraft::Swizzled<16, 4>>;
using WideCopy = tilecraft::TileCopy<tilecraft::CacheHint::normal, tilecraft::TileMapping::wide>;
using BlockCopy = tilecraft::TileCopy<tilecraft::CacheHint::normal, tilecraft::TileMapping::transposed_blocks>;
static_assert(tilecraft::copy_tile_conflict_factor<Quads, tilecraft::TileMapping::wide>() == 1);
static_assert(tilecraft::copy_tile_conflict_factor<tilecraft::TransposedView<const Quads>,
                                                   tilecraft::TileMapping::transposed_blocks>() == 1);
__global__ void block_transpose(const float* in, float* out, int rows, int cols) {
  __shared__ Quads tile;
  const std::int64_t r0 = blockIdx.y * 32, c0 = blockIdx.x * 32;
  tilecraft::copy_tile<64, WideCopy>(tile, tilecraft::MatrixRef<const float>{in, rows, cols, cols}, r0, c0);
  __syncthreads();
  tilecraft::copy_tile<64, BlockCopy>(tilecraft::MatrixRef<float>{out, cols, rows, rows}, c0, r0,
                                      tilecraft::transposed(tile));
}

int main() {
  if (!example::have_gpu("shared_tile_basics")) return 0;
  const int rows = 100, cols = 70;
  std::vector<float> h(rows * cols);
  for (int i = 0; i < rows * cols; ++i) h[i] = static_cast<float>(i);
  float *in, *out, *copy, *out2;
  TILECRAFT_THROW_IF_ERROR(cudaMalloc(&in, h.size() * sizeof(float)));
  TILECRAFT_THROW_IF_ERROR(cudaMalloc(&out, h.size() * sizeof(float)));
  TILECRAFT_THROW_IF_ERROR(cudaMalloc(&copy, h.size() * sizeof(float)));
  TILECRAFT_THROW_IF_ERROR(cudaMalloc(&out2, h.size() * sizeof(float)));
  TILECRAFT_THROW_IF_ERROR(cudaMemcpy(in, h.data(), h.size() * sizeof(float), cudaMemcpyHostToDevice));
  const dim3 grid((cols + 31) / 32, (rows + 31) / 32);
  two_tiles<<<grid, 256, tilecraft::SharedCarve<Padded, Swizzled>::bytes>>>(in, out, copy, rows, cols);
  TILECRAFT_THROW_IF_ERROR(cudaGetLastError());
  block_transpose<<<grid, 64>>>(in, out2, rows, cols);
  TILECRAFT_THROW_IF_ERROR(cudaGetLastError());
  std::vector<float> t(h.size()), c(h.size()), t2(h.size());
  TILECRAFT_THROW_IF_ERROR(cudaMemcpy(t.data(), out, t.size() * sizeof(float), cudaMemcpyDeviceToHost));
  TILECRAFT_THROW_IF_ERROR(cudaMemcpy(c.data(), copy, c.size() * sizeof(float), cudaMemcpyDeviceToHost));
  TILECRAFT_THROW_IF_ERROR(cudaMemcpy(t2.data(), out2, t2.size() * sizeof(float), cudaMemcpyDeviceToHost));
  int bad = 0, bad_blocks = 0;
  for (int r = 0; r < rows; ++r) {
    for (int k = 0; k < cols; ++k) {
      bad += t[k * rows + r] != h[r * cols + k] || c[r * cols + k] != h[r * cols + k];
      bad_blocks += t2[k * rows + r] != h[r * cols + k];
    }
  }
  std::printf("%d x %d through %zu bytes of carved shared memory: %s\n", rows, cols,
              tilecraft::SharedCarve<Padded, Swizzled>::bytes, bad == 0 ? "ok" : "WRONG");
  std::printf("the same transpose through 4 x 4 register-transposed blocks: %s\n", bad_blocks == 0 ? "ok" : "WRONG");
  for (float* p : {in, out, copy, out2}) TILECRAFT_THROW_IF_ERROR(cudaFree(p));
  return bad == 0 && bad_blocks == 0 ? 0 : 1;
}
