// Bank conflicts, predicted and measured. Three kernels read a 32 x 32 float tile down its
// columns: unpadded, padded by one float, XOR-swizzled. The bank model predicts 32, 1 and 1
// wavefronts per warp-wide read; under Nsight Compute the shared-load counters confirm it
// (.ci/gpu-check runs this):
//   ncu --clock-control none --metrics l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum,
//       l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum ./bank_conflicts
// Each kernel issues exactly 32 warp-wide column reads per warp (8 warps, 1 block), so
// wavefronts = 8 warps x 32 reads x (model's wavefronts per read).
// Three more read a 64 x 64 float tile the way TileMapping::transposed_blocks does (16-byte
// loads from rows 4m + k): swizzled by groups of 4 rows, by single rows, and not at all; the
// model predicts 4 (the minimum for 16-byte loads), 16 and 32 wavefronts per load.
#include <cstdio>

#include <tilecraft/memory/bank_model.cuh>
#include <tilecraft/memory/shared_tile.cuh>

#include "example_util.cuh"

// `step` is 1 at run time; as a kernel argument it keeps the compiler from merging a lane's 32
// reads of its row into 16-byte vector loads, so each read stays one warp-wide column access.
template <class Tile>
__global__ void column_reads(float* out, int step) {
  __shared__ Tile tile;
  for (int i = threadIdx.x; i < 32 * 32; i += blockDim.x) tile(i / 32, i % 32) = static_cast<float>(i);
  __syncthreads();
  const int lane = threadIdx.x % 32;
  float acc = 0.0f;
#pragma unroll
  for (int c = 0; c < 32; ++c) acc += tile(lane, (c * step) & 31);  // lane l reads row l: a column per step
  out[threadIdx.x] = acc;
}

// Warp w reads bands 2w and 2w + 1 of the transposed view: lane l takes the 4 x 4 block of
// tile rows 4 (l % 16) ... + 3 and columns 4 (2w + l / 16) ... + 3, one 16-byte load per row.
template <class Tile>
__global__ void block_reads(float* out) {
  __shared__ Tile tile;
  for (int i = threadIdx.x; i < 64 * 64; i += blockDim.x) tile(i / 64, i % 64) = static_cast<float>(i);
  __syncthreads();
  const int lane = threadIdx.x % 32, band = 2 * (threadIdx.x / 32) + lane / 16, bc = lane % 16;
  float acc = 0.0f;
#pragma unroll
  for (int k = 0; k < 4; ++k) {
    const float4 q = *reinterpret_cast<const float4*>(&tile(4 * bc + k, 4 * band));
    acc += q.x + q.y + q.z + q.w;
  }
  out[threadIdx.x] = acc;
}

template <class Tile>
int block_read_wavefronts() {
  return tilecraft::bank::tile_wavefronts<Tile>(
      [](int lane) {
        return tilecraft::bank::Coord{4 * (lane % 16), 4 * (lane / 16)};
      },
      16);
}

template <class Tile>
void run_blocks(const char* name, float* out) {
  block_reads<Tile><<<1, 256>>>(out);
  TILECRAFT_THROW_IF_ERROR(cudaGetLastError());
  TILECRAFT_THROW_IF_ERROR(cudaDeviceSynchronize());
  const int per_read = block_read_wavefronts<Tile>();
  std::printf("  %-10s model: %2d wavefronts per 16-byte block load -> %5d shared-load wavefronts expected\n", name,
              per_read, 8 * 4 * per_read);
}

template <class Tile>
void run(const char* name, float* out) {
  column_reads<Tile><<<1, 256>>>(out, 1);
  TILECRAFT_THROW_IF_ERROR(cudaGetLastError());
  TILECRAFT_THROW_IF_ERROR(cudaDeviceSynchronize());
  const int per_read = tilecraft::bank::column_wavefronts<Tile>();
  std::printf("  %-10s model: %2d wavefronts per column read -> %5d shared-load wavefronts expected for the reads\n",
              name, per_read, 8 * 32 * per_read);
}

int main() {
  if (!example::have_gpu("bank_conflicts")) return 0;
  float* out = nullptr;
  TILECRAFT_THROW_IF_ERROR(cudaMalloc(&out, 256 * sizeof(float)));
  run<tilecraft::SharedTile<float, 32, 0>>("unpadded", out);
  run<tilecraft::SharedTile<float, 32, 1>>("padded", out);
  run<tilecraft::SharedMatrix<float, 32, 32, tilecraft::Swizzled<>>>("swizzled", out);
  run_blocks<tilecraft::SharedMatrix<float, 64, 64, tilecraft::Swizzled<16, 4>>>("swz16x4", out);
  run_blocks<tilecraft::SharedMatrix<float, 64, 64, tilecraft::Swizzled<16>>>("swz16", out);
  run_blocks<tilecraft::SharedMatrix<float, 64, 64>>("plain64", out);
  TILECRAFT_THROW_IF_ERROR(cudaFree(out));
  return 0;
}
