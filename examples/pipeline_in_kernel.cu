// A multi-stage Pipeline inside your own kernel: y = A x for an M x K matrix, each block owning
// 8 rows of A and streaming its row panel through shared memory in 8 x 128 tiles, three stages
// deep: while the block multiplies one tile, the next two are in flight (cp.async on sm_80+).
// Any M, K and leading dimension: the last tile of a row reaches past the matrix and its
// outside elements arrive as zeros, so the loop has no edge cases of its own.
//
// Then a pipeline left early, and Pipeline::drain: each warp searches a row for the first column
// where the row's running sum reaches a limit, and the block stops streaming as soon as all its
// rows have found theirs, with tiles still in flight into its shared memory; drain() waits for
// them before the block exits.
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

// The search (A's elements here are small whole numbers >= 0, so every running sum is exact and
// only grows): first[r] is the first column c with a[r][0] + ... + a[r][c] >= limit, or -1.
// Each warp owns a row as in matvec; lane l sums columns 4l ... 4l + 3 of a tile, a warp scan
// of those sums finds the lane where the limit is reached, and that lane the column. The block
// stops once every row has its answer (__syncthreads_and: a block-wide vote, itself a barrier).
// At that point the two stages issued ahead are still in flight: leaving with copies
// outstanding would let them land in shared memory the block no longer owns, so drain() waits
// for them (and runs a barrier) first. tiles_issued counts the tiles the blocks streamed.
__global__ void __launch_bounds__(threads)
    first_reaching(tilecraft::MatrixRef<const float> a, float limit, std::int64_t* first, unsigned* tiles_issued) {
  __shared__ tilecraft::PipelineStorage<Tile, stages> storage;
  tilecraft::Pipeline pipe(storage);
  const std::int64_t r0 = static_cast<std::int64_t>(blockIdx.x) * tile_rows;
  const int tiles = static_cast<int>((a.cols + tile_k - 1) / tile_k);
  int issued = 0;
  auto issue = [&] {
    tilecraft::copy_tile_async<threads>(pipe.producer_acquire(), a, r0, std::int64_t{issued} * tile_k);
    pipe.producer_commit();
    ++issued;
  };
  while (issued < stages - 1 && issued < tiles) issue();

  const int row = threadIdx.x / 32, lane = threadIdx.x % 32;
  float running = 0.0f;            // the row's sum before the current tile
  std::int64_t found = -1;         // the answer, once known
  bool done = r0 + row >= a.rows;  // (rows past the matrix have none to find)
  for (int k = 0; k < tiles; ++k) {
    const Tile& t = pipe.consumer_wait();
    if (issued < tiles) issue();
    if (!done) {
      float v[4], s = 0.0f;  // columns 4 lane ... 4 lane + 3 of the tile (zeros past the row's end)
      for (int j = 0; j < 4; ++j) {
        v[j] = t(row, 4 * lane + j);
        s += v[j];
      }
      float incl = s;  // the warp's inclusive scan of the lanes' sums
      for (int o = 1; o < 32; o *= 2) {
        const float up = __shfl_up_sync(0xffffffffu, incl, o);
        if (lane >= o) incl += up;
      }
      const unsigned reached = __ballot_sync(0xffffffffu, running + incl >= limit);
      if (reached != 0) {
        const int at = __ffs(static_cast<int>(reached)) - 1;  // the first lane that reaches it
        std::int64_t col = -1;
        if (lane == at) {
          float sum = running + incl - s;
          for (int j = 0; j < 4 && col < 0; ++j)
            if ((sum += v[j]) >= limit) col = std::int64_t{k} * tile_k + 4 * lane + j;
        }
        found = __shfl_sync(0xffffffffu, col, at);
        done = true;
      }
      running += __shfl_sync(0xffffffffu, incl, 31);
    }
    pipe.consumer_release();
    if (__syncthreads_and(done)) break;  // every row answered: the tiles left are not needed
  }
  pipe.drain();  // the stages still in flight land before the block's shared memory is given up
  if (threadIdx.x == 0) atomicAdd(tiles_issued, static_cast<unsigned>(issued));
  if (lane == 0 && r0 + row < a.rows) first[r0 + row] = found;
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

  // The search on a matrix of whole numbers 0 ... 3 of the same shape; every 97th row is zeros
  // (its running sum never reaches the limit: -1, and its block streams every tile).
  std::vector<float> hw(ha.size());
  for (std::size_t i = 0; i < hw.size(); ++i) {
    const std::int64_t r = static_cast<std::int64_t>(i) / ld;
    hw[i] = r % 97 == 0 ? 0.0f : static_cast<float>((i * 2246822519u >> 7) % 4);
  }
  float* w = example::device_copy(hw);
  const tilecraft::MatrixRef<const float> w_ref{w, m, k, ld};
  const float limit = 1500.0f;  // reached near column 1000 of 5003 (the mean element is 1.5)
  std::int64_t* first = nullptr;
  unsigned* tiles_issued = nullptr;
  TILECRAFT_THROW_IF_ERROR(cudaMalloc(&first, static_cast<std::size_t>(m) * sizeof(std::int64_t)));
  TILECRAFT_THROW_IF_ERROR(cudaMalloc(&tiles_issued, sizeof(unsigned)));
  TILECRAFT_THROW_IF_ERROR(cudaMemset(first, 0x55, static_cast<std::size_t>(m) * sizeof(std::int64_t)));  // poison
  TILECRAFT_THROW_IF_ERROR(cudaMemset(tiles_issued, 0, sizeof(unsigned)));
  first_reaching<<<blocks, threads>>>(w_ref, limit, first, tiles_issued);
  TILECRAFT_THROW_IF_ERROR(cudaGetLastError());
  std::vector<std::int64_t> got_first(static_cast<std::size_t>(m));
  unsigned streamed = 0;
  TILECRAFT_THROW_IF_ERROR(
      cudaMemcpy(got_first.data(), first, got_first.size() * sizeof(std::int64_t), cudaMemcpyDeviceToHost));
  TILECRAFT_THROW_IF_ERROR(cudaMemcpy(&streamed, tiles_issued, sizeof(unsigned), cudaMemcpyDeviceToHost));
  bool search_ok = true;
  for (std::int64_t r = 0; r < m; ++r) {
    double sum = 0;
    std::int64_t want = -1;
    for (std::int64_t c = 0; c < k && want < 0; ++c)
      if ((sum += hw[static_cast<std::size_t>(r * ld + c)]) >= limit) want = c;
    search_ok = search_ok && got_first[static_cast<std::size_t>(r)] == want;
  }
  const double search_ms =
      example::time_ms([&] { first_reaching<<<blocks, threads>>>(w_ref, limit, first, tiles_issued); });
  const long long all_tiles = static_cast<long long>(blocks) * ((k + tile_k - 1) / tile_k);
  std::printf("first column where a row's running sum reaches %.0f: the blocks streamed %u of %lld tiles\n", limit,
              streamed, all_tiles);
  example::report("pipeline left early, drain()", search_ms, double(streamed) * tile_rows * tile_k * sizeof(float),
                  example::verdict(search_ok));
  TILECRAFT_THROW_IF_ERROR(cudaFree(first));
  TILECRAFT_THROW_IF_ERROR(cudaFree(tiles_issued));
  TILECRAFT_THROW_IF_ERROR(cudaFree(w));

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
  return worst < 1e-5 && sum_ok && search_ok ? 0 : 1;
}
