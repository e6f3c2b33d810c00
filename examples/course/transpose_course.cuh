// The transpose kernels a CUDA course teaches, kept verbatim in spirit as the first rungs of
// the transpose ladder and as benchmark baselines. 32 x 32 tiles, 32 x 8 threads, each thread
// moves four elements; bounds-checked so they work for any M x N.
#pragma once

#include <cstdint>

namespace course {

constexpr int tile_dim = 32;
constexpr int block_rows = 8;

//! Rung 1: read rows, write columns straight to global memory (uncoalesced writes).
template <class T>
__global__ void transpose_naive(const T* in, T* out, int rows, int cols) {
  const int c = blockIdx.x * tile_dim + threadIdx.x;
  for (int j = 0; j < tile_dim; j += block_rows) {
    const int r = blockIdx.y * tile_dim + threadIdx.y + j;
    if (r < rows && c < cols)
      out[static_cast<std::int64_t>(c) * rows + r] = in[static_cast<std::int64_t>(r) * cols + c];
  }
}

//! Rungs 2 and 3: stage a tile in shared memory so both global accesses are coalesced.
//! Pad = 0 reads the tile down a column: all 32 lanes in one bank, 32-way conflicts.
//! Pad = 1 is the course's `tile[32][33]`: every row starts one bank later, no conflicts.
template <class T, int Pad>
__global__ void transpose_shared(const T* in, T* out, int rows, int cols) {
  __shared__ T tile[tile_dim][tile_dim + Pad];
  int c = blockIdx.x * tile_dim + threadIdx.x;
  for (int j = 0; j < tile_dim; j += block_rows) {
    const int r = blockIdx.y * tile_dim + threadIdx.y + j;
    if (r < rows && c < cols) tile[threadIdx.y + j][threadIdx.x] = in[static_cast<std::int64_t>(r) * cols + c];
  }
  __syncthreads();
  c = blockIdx.y * tile_dim + threadIdx.x;  // column of the output = row of the input
  for (int j = 0; j < tile_dim; j += block_rows) {
    const int r = blockIdx.x * tile_dim + threadIdx.y + j;
    if (r < cols && c < rows) out[static_cast<std::int64_t>(r) * rows + c] = tile[threadIdx.x][threadIdx.y + j];
  }
}

inline dim3 transpose_grid(int rows, int cols) {
  return dim3((cols + tile_dim - 1) / tile_dim, (rows + tile_dim - 1) / tile_dim);
}
inline dim3 transpose_block() { return dim3(tile_dim, block_rows); }

}  // namespace course
