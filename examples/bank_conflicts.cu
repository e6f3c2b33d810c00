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
constexpr int block_read_wavefronts() {
  return tilecraft::bank::tile_wavefronts<Tile>(
      [](int lane) {
        return tilecraft::bank::Coord{4 * (lane % 16), 4 * (lane / 16)};
      },
      16);
}

// The model's predictions, checked where the program is compiled.
static_assert(tilecraft::bank::column_wavefronts<tilecraft::SharedTile<float, 32, 0>>() == 32);
static_assert(tilecraft::bank::column_wavefronts<tilecraft::SharedTile<float, 32, 1>>() == 1);
static_assert(tilecraft::bank::column_wavefronts<tilecraft::SharedMatrix<float, 32, 32, tilecraft::Swizzled<>>>() == 1);
static_assert(block_read_wavefronts<tilecraft::SharedMatrix<float, 64, 64, tilecraft::Swizzled<16, 4>>>() == 4);
static_assert(block_read_wavefronts<tilecraft::SharedMatrix<float, 64, 64, tilecraft::Swizzled<16>>>() == 16);
static_assert(block_read_wavefronts<tilecraft::SharedMatrix<float, 64, 64>>() == 32);

// Whether the 256 sums the kernel wrote are want(thread) (small integers: exact in float).
template <class Want>
bool sums_ok(const char* name, const float* out, Want want) {
  float got[256];
  TILECRAFT_THROW_IF_ERROR(cudaMemcpy(got, out, sizeof(got), cudaMemcpyDeviceToHost));
  int bad = 0;
  for (int t = 0; t < 256; ++t) bad += got[t] != want(t);
  if (bad > 0) std::printf("  %-10s %d of 256 sums wrong\n", name, bad);
  return bad == 0;
}

template <class Tile>
bool run_blocks(const char* name, float* out) {
  block_reads<Tile><<<1, 256>>>(out);
  TILECRAFT_THROW_IF_ERROR(cudaGetLastError());
  TILECRAFT_THROW_IF_ERROR(cudaDeviceSynchronize());
  constexpr int per_read = block_read_wavefronts<Tile>();
  std::printf("  %-10s model: %2d wavefronts per 16-byte block load -> %5d shared-load wavefronts expected\n", name,
              per_read, 8 * 4 * per_read);
  // Thread t: the 4 x 4 block at tile rows 4 (l % 16) ..., columns 4 (2 (t / 32) + l / 16) ...
  return sums_ok(name, out, [](int t) {
    const int lane = t % 32, band = 2 * (t / 32) + lane / 16, bc = lane % 16;
    float sum = 0.0f;
    for (int k = 0; k < 4; ++k)
      for (int j = 0; j < 4; ++j) sum += static_cast<float>((4 * bc + k) * 64 + 4 * band + j);
    return sum;
  });
}

template <class Tile>
bool run(const char* name, float* out) {
  column_reads<Tile><<<1, 256>>>(out, 1);
  TILECRAFT_THROW_IF_ERROR(cudaGetLastError());
  TILECRAFT_THROW_IF_ERROR(cudaDeviceSynchronize());
  constexpr int per_read = tilecraft::bank::column_wavefronts<Tile>();
  std::printf("  %-10s model: %2d wavefronts per column read -> %5d shared-load wavefronts expected for the reads\n",
              name, per_read, 8 * 32 * per_read);
  // Thread t (lane l) sums row l: l * 32 + c for c = 0 ... 31.
  return sums_ok(name, out, [](int t) { return static_cast<float>(1024 * (t % 32) + 496); });
}

int main() {
  if (!example::have_gpu("bank_conflicts")) return 0;
  float* out = nullptr;
  TILECRAFT_THROW_IF_ERROR(cudaMalloc(&out, 256 * sizeof(float)));
  bool ok = run<tilecraft::SharedTile<float, 32, 0>>("unpadded", out);
  ok &= run<tilecraft::SharedTile<float, 32, 1>>("padded", out);
  ok &= run<tilecraft::SharedMatrix<float, 32, 32, tilecraft::Swizzled<>>>("swizzled", out);
  ok &= run_blocks<tilecraft::SharedMatrix<float, 64, 64, tilecraft::Swizzled<16, 4>>>("swz16x4", out);
  ok &= run_blocks<tilecraft::SharedMatrix<float, 64, 64, tilecraft::Swizzled<16>>>("swz16", out);
  ok &= run_blocks<tilecraft::SharedMatrix<float, 64, 64>>("plain64", out);
  TILECRAFT_THROW_IF_ERROR(cudaFree(out));
  std::printf("bank_conflicts: %s\n", ok ? "every sum checked" : "WRONG SUMS");
  return ok ? 0 : 1;
}
