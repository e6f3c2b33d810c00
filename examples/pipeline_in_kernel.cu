// A multi-stage Pipeline inside your own kernel: y = A x for an M x K matrix, each block owning
// 8 rows of A and streaming its row panel through shared memory in 8 x 128 tiles, three stages
// deep: while the block multiplies one tile, the next two are in flight (cp.async on sm_80+).
// Any M, K and leading dimension: the last tile of a row reaches past the matrix and its
// outside elements arrive as zeros, so the loop has no edge cases of its own.
#include <cmath>
#include <cstdio>
#include <vector>

#include <tilecraft/memory/pipeline.cuh>
#include <tilecraft/memory/tile_copy.cuh>

#include "example_util.cuh"

namespace {

constexpr int tile_rows = 8, tile_k = 128, stages = 3, threads = 256;  // 8 warps: one per row
using Tile = tilecraft::SharedMatrix<float, tile_rows, tile_k, tilecraft::Swizzled<16>>;

__global__ void __launch_bounds__(threads) matvec(tilecraft::MatrixRef<const float> a, const float* x, float* y) {
  __shared__ tilecraft::PipelineStorage<Tile, stages> storage;  // 3 x 4 KiB
  tilecraft::Pipeline pipe(storage);
  const std::int64_t r0 = static_cast<std::int64_t>(blockIdx.x) * tile_rows;
  const int tiles = static_cast<int>((a.cols + tile_k - 1) / tile_k);
  int issued = 0;
  auto issue = [&] {  // every thread: acquire the next stage, start its copies, commit them
    tilecraft::copy_tile_async<threads>(pipe.producer_acquire(), a, r0, std::int64_t{issued} * tile_k);
    pipe.producer_commit();
    ++issued;
  };
  while (issued < stages - 1 && issued < tiles) issue();  // prologue: two tiles in flight

  const int row = threadIdx.x / 32, lane = threadIdx.x % 32;
  float acc = 0.0f;
  for (int k = 0; k < tiles; ++k) {
    const Tile& t = pipe.consumer_wait();  // tile k landed; includes __syncthreads()
    if (issued < tiles) issue();           // refills the stage tile k - 1 used
    for (int c = lane; c < tile_k; c += 32) {
      const std::int64_t col = std::int64_t{k} * tile_k + c;
      if (col < a.cols) acc += t(row, c) * x[col];
    }
    pipe.consumer_release();
  }
  for (int o = 16; o > 0; o /= 2) acc += __shfl_xor_sync(0xffffffffu, acc, o);
  if (lane == 0 && r0 + row < a.rows) y[r0 + row] = acc;
}

}  // namespace

int main() {
  if (!example::have_gpu("pipeline_in_kernel")) return 0;
  const std::int64_t m = 3001, k = 5003, ld = 5008;
  std::vector<float> ha(static_cast<std::size_t>(m * ld)), hx(static_cast<std::size_t>(k));
  for (std::size_t i = 0; i < ha.size(); ++i) ha[i] = static_cast<float>((i * 2654435761u) % 2000) / 1000.0f - 1.0f;
  for (std::size_t i = 0; i < hx.size(); ++i) hx[i] = static_cast<float>((i * 40503u) % 1000) / 1000.0f;
  float *a = nullptr, *x = nullptr, *y = nullptr;
  TILECRAFT_THROW_IF_ERROR(cudaMalloc(&a, ha.size() * sizeof(float)));
  TILECRAFT_THROW_IF_ERROR(cudaMalloc(&x, hx.size() * sizeof(float)));
  TILECRAFT_THROW_IF_ERROR(cudaMalloc(&y, static_cast<std::size_t>(m) * sizeof(float)));
  TILECRAFT_THROW_IF_ERROR(cudaMemcpy(a, ha.data(), ha.size() * sizeof(float), cudaMemcpyHostToDevice));
  TILECRAFT_THROW_IF_ERROR(cudaMemcpy(x, hx.data(), hx.size() * sizeof(float), cudaMemcpyHostToDevice));
  const tilecraft::MatrixRef<const float> ref{a, m, k, ld};
  const unsigned blocks = static_cast<unsigned>((m + tile_rows - 1) / tile_rows);
  const double ms = example::time_ms([&] { matvec<<<blocks, threads>>>(ref, x, y); });
  std::vector<float> got(static_cast<std::size_t>(m));
  TILECRAFT_THROW_IF_ERROR(cudaMemcpy(got.data(), y, got.size() * sizeof(float), cudaMemcpyDeviceToHost));
  double worst = 0;
  for (std::int64_t r = 0; r < m; ++r) {
    double want = 0, mag = 0;
    for (std::int64_t c = 0; c < k; ++c) {
      want += double(ha[static_cast<std::size_t>(r * ld + c)]) * hx[static_cast<std::size_t>(c)];
      mag += std::fabs(double(ha[static_cast<std::size_t>(r * ld + c)]) * hx[static_cast<std::size_t>(c)]);
    }
    worst = std::fmax(worst, std::fabs(got[static_cast<std::size_t>(r)] - want) / mag);
  }
  std::printf("y = A x, A %lld x %lld (ld %lld), 3-stage pipeline of 8 x 128 tiles:\n", static_cast<long long>(m),
              static_cast<long long>(k), static_cast<long long>(ld));
  example::report("pipelined matvec", ms, double(m * k + k + m) * sizeof(float), example::verdict(worst < 1e-5));
  TILECRAFT_THROW_IF_ERROR(cudaFree(a));
  TILECRAFT_THROW_IF_ERROR(cudaFree(x));
  TILECRAFT_THROW_IF_ERROR(cudaFree(y));
  return worst < 1e-5 ? 0 : 1;
}
