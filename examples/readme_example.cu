// The README's usage example, compiled and checked: each block transposes one 32 x 32 tile of a
// matrix of any size through a padded shared tile and sums the tile's elements.
#include <tilecraft/block/block_reduce.cuh>
#include <tilecraft/memory/tile_copy.cuh>

#include <cstdio>
#include <vector>

#include "example_util.cuh"

// --- README begin
__global__ void transpose_and_sum(const float* in, float* out, int rows, int cols, float* tile_sums) {
  __shared__ tilecraft::SharedTile<float, 32, 1> tile;  // float[32][33]: conflict-free columns
  __shared__ tilecraft::BlockReduceStorage<float, 256> temp;
  const std::int64_t r0 = blockIdx.y * 32, c0 = blockIdx.x * 32;
  // Coalesced 16-byte loads where aligned; elements past the matrix edge read as 0.
  tilecraft::copy_tile<256>(tile, tilecraft::MatrixRef<const float>{in, rows, cols, cols}, r0, c0);
  __syncthreads();
  // Write the tile transposed; only elements inside `out` (cols x rows) are stored.
  tilecraft::copy_tile<256>(tilecraft::MatrixRef<float>{out, cols, rows, rows}, c0, r0, tilecraft::transposed(tile));
  float mine = 0.0f;
  for (int i = threadIdx.x; i < 32 * 32; i += 256) mine += tile(i / 32, i % 32);
  const float total = tilecraft::block_reduce(temp, mine, tilecraft::Sum{});  // valid in thread 0
  if (threadIdx.x == 0) tile_sums[blockIdx.y * gridDim.x + blockIdx.x] = total;
}
// --- README end

int main() {
  if (!example::have_gpu("readme_example")) return 0;
  const int rows = 70, cols = 45;
  const dim3 grid((cols + 31) / 32, (rows + 31) / 32);
  std::vector<float> h(rows * cols);
  for (int i = 0; i < rows * cols; ++i) h[i] = static_cast<float>(i % 17);
  float *in, *out, *sums;
  TILECRAFT_THROW_IF_ERROR(cudaMalloc(&in, h.size() * sizeof(float)));
  TILECRAFT_THROW_IF_ERROR(cudaMalloc(&out, h.size() * sizeof(float)));
  TILECRAFT_THROW_IF_ERROR(cudaMalloc(&sums, grid.x * grid.y * sizeof(float)));
  TILECRAFT_THROW_IF_ERROR(cudaMemcpy(in, h.data(), h.size() * sizeof(float), cudaMemcpyHostToDevice));
  transpose_and_sum<<<grid, 256>>>(in, out, rows, cols, sums);
  TILECRAFT_THROW_IF_ERROR(cudaGetLastError());
  std::vector<float> t(h.size()), s(grid.x * grid.y);
  TILECRAFT_THROW_IF_ERROR(cudaMemcpy(t.data(), out, t.size() * sizeof(float), cudaMemcpyDeviceToHost));
  TILECRAFT_THROW_IF_ERROR(cudaMemcpy(s.data(), sums, s.size() * sizeof(float), cudaMemcpyDeviceToHost));
  int bad = 0;
  for (int r = 0; r < rows; ++r)
    for (int c = 0; c < cols; ++c) bad += t[c * rows + r] != h[r * cols + c];
  for (unsigned by = 0; by < grid.y; ++by)
    for (unsigned bx = 0; bx < grid.x; ++bx) {
      float ref = 0;
      for (unsigned r = by * 32; r < by * 32 + 32 && r < static_cast<unsigned>(rows); ++r)
        for (unsigned c = bx * 32; c < bx * 32 + 32 && c < static_cast<unsigned>(cols); ++c) ref += h[r * cols + c];
      bad += s[by * grid.x + bx] != ref;
    }
  std::printf("transpose_and_sum on %d x %d: %s\n", rows, cols, bad == 0 ? "ok" : "WRONG");
  for (float* p : {in, out, sums}) TILECRAFT_THROW_IF_ERROR(cudaFree(p));
  return bad == 0 ? 0 : 1;
}
