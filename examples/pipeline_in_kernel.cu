// A multi-stage Pipeline inside your own kernel: y = A x for an M x K matrix, each block owning
// 8 rows of A and streaming its row panel through shared memory in 8 x 128 tiles, three stages
// deep: while the block multiplies one tile, the next two are in flight (cp.async on sm_80+).
// Any M, K and leading dimension: the last tile of a row reaches past the matrix and its
// outside elements arrive as zeros, so the loop has no edge cases of its own.
//
// Then the primitives under Pipeline, by hand: the sum of squares of a vector, each block
// streaming chunks of 256 float4 through a two-stage buffer with copy_async (one 16-byte copy a
// thread; the predicated form writes zeros past the end), copy_async_commit (closes the group of
// copies the thread started) and copy_async_wait_block<1> (waits until at most the newest group
// is in flight, then a barrier so that each thread may read what the others copied).
#include <cmath>
#include <cstdio>
#include <vector>

#include <tilecraft/memory/copy_async.cuh>
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

constexpr int chunk = threads;  // float4 a chunk: one per thread

__global__ void __launch_bounds__(threads) sum_of_squares(const float4* v, std::int64_t n4, float* warp_sums) {
  __shared__ __align__(16) float4 stage[2][chunk];
  const std::int64_t first = std::int64_t{blockIdx.x} * chunk, stride = std::int64_t{gridDim.x} * chunk;
  const int t = static_cast<int>(threadIdx.x);
  auto issue = [&](std::int64_t base, int s) {  // this thread's copy of chunk `base` into stage s
    const std::int64_t i = base + t;
    tilecraft::copy_async<16>(&stage[s][t], i < n4 ? v + i : v, i < n4);  // zeros past the end
    tilecraft::copy_async_commit();
  };
  float acc = 0.0f;
  int s = 0;
  issue(first, 0);
  for (std::int64_t base = first; base < n4; base += stride, s ^= 1) {
    issue(base + stride, s ^ 1);               // the next chunk flies while this one is summed
    tilecraft::copy_async_wait_block<1>();     // this chunk's group landed, in every thread
    const float4 x = stage[s][chunk - 1 - t];  // another thread's copy: visible after the barrier
    acc += x.x * x.x + x.y * x.y + x.z * x.z + x.w * x.w;
    __syncthreads();  // every read of stage s done before the next iteration refills it
  }
  tilecraft::copy_async_wait<0>();  // the last (empty) chunk's zero-fills too, before exiting
  for (int o = 16; o > 0; o /= 2) acc += __shfl_xor_sync(0xffffffffu, acc, o);
  if (t % 32 == 0) warp_sums[std::int64_t{blockIdx.x} * (threads / 32) + t / 32] = acc;
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

  // The hand-made double buffer over the matrix's storage as one vector of float4.
  const std::int64_t n4 = static_cast<std::int64_t>(ha.size()) / 4;
  const unsigned sum_blocks = 264;
  float* warp_sums = nullptr;
  const std::size_t sums = std::size_t{sum_blocks} * (threads / 32);
  TILECRAFT_THROW_IF_ERROR(cudaMalloc(&warp_sums, sums * sizeof(float)));
  const double sum_ms = example::time_ms(
      [&] { sum_of_squares<<<sum_blocks, threads>>>(reinterpret_cast<const float4*>(a), n4, warp_sums); });
  std::vector<float> got_sums(sums);
  TILECRAFT_THROW_IF_ERROR(cudaMemcpy(got_sums.data(), warp_sums, sums * sizeof(float), cudaMemcpyDeviceToHost));
  double total = 0, want_total = 0;
  for (float w : got_sums) total += w;
  for (std::int64_t i = 0; i < 4 * n4; ++i)
    want_total += double(ha[static_cast<std::size_t>(i)]) * ha[static_cast<std::size_t>(i)];
  const bool sum_ok = std::fabs(total - want_total) <= 1e-5 * want_total;
  example::report("sum of squares, copy_async by hand", sum_ms, double(4 * n4) * sizeof(float),
                  example::verdict(sum_ok));
  TILECRAFT_THROW_IF_ERROR(cudaFree(warp_sums));
  TILECRAFT_THROW_IF_ERROR(cudaFree(a));
  TILECRAFT_THROW_IF_ERROR(cudaFree(x));
  TILECRAFT_THROW_IF_ERROR(cudaFree(y));
  return worst < 1e-5 && sum_ok ? 0 : 1;
}
