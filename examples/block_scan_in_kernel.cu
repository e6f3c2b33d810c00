// block_scan inside your own kernel, walking a long row tile by tile: one block per row of an
// int matrix writes the row's running sums (an inclusive scan of any length).
//   - The row goes through shared memory a tile of 128 threads x 4 items at a time. The next
//     tile's loads are issued into registers (TileFragment, load_fragment) before the current
//     tile is scanned, and stored into the shared tile (store_fragment) after it: software
//     pipelining through registers, so the loads are in flight while the block scans.
//   - Each thread scans its 4 consecutive items as a blocked array (block_inclusive_scan with
//     Items = 4); a prefix callback (BlockPrefixCallback, CUB's BlockPrefixCallbackOp) carries
//     the row's running total from tile to tile.
//   - The last tile of a row is partial: ValidItems tells the scan how many items take part, so
//     no padding value has to be neutral for the operator.
// The host checks every output against a sequential scan.
#include <cstdint>
#include <cstdio>
#include <vector>

#include <tilecraft/block/block_scan.cuh>
#include <tilecraft/memory/matrix_ref.cuh>
#include <tilecraft/memory/shared_tile.cuh>
#include <tilecraft/memory/tile_copy.cuh>
#include <tilecraft/util/functional.cuh>

#include "example_util.cuh"

constexpr int threads = 128;
constexpr int items = 4;
constexpr int tile_items = threads * items;
using Tile = tilecraft::SharedMatrix<int, 1, tile_items>;

// The running total of the row: every lane of the first warp calls it once per tile with the
// tile's aggregate (so each of those lanes advances its own copy alike), and lane 0's return
// value is what precedes the tile's first item. The other warps' copies are never called: read
// `total` after the loop in warp 0 only.
struct RunningTotal {
  int total;
  __device__ int operator()(int tile_aggregate) {
    const int before = total;
    total += tile_aggregate;
    return before;
  }
};
static_assert(tilecraft::BlockPrefixCallback<RunningTotal, int>);

__global__ void __launch_bounds__(threads) row_running_sums(const int* a, int* sums, int cols, int ld) {
  __shared__ Tile tile;
  __shared__ tilecraft::BlockScanStorage<int, threads> temp;
  const std::int64_t r = blockIdx.x;
  const tilecraft::MatrixRef<const int> row{a + r * ld, 1, cols, ld};
  const int t = static_cast<int>(threadIdx.x);
  tilecraft::TileFragment<threads, Tile> next;
  tilecraft::load_fragment(next, row, 0, 0);  // tile 0's loads in flight (past the row's end: 0)
  RunningTotal carry{0};
  for (int c0 = 0; c0 < cols; c0 += tile_items) {
    __syncthreads();  // every thread is done reading the tile before
    tilecraft::store_fragment(tile, next);
    if (c0 + tile_items < cols) tilecraft::load_fragment(next, row, 0, c0 + tile_items);  // the next tile's
    __syncthreads();
    // Blocked: thread t holds items 4t ... 4t + 3, read as one 16-byte vector (a lane's 16 bytes
    // each: conflict-free; four 4-byte reads 16 bytes apart would meet 4-way bank conflicts).
    const int4 w = *reinterpret_cast<const int4*>(&tile(0, t * items));
    int v[items] = {w.x, w.y, w.z, w.w};
    if (c0 + tile_items <= cols) {
      tilecraft::block_inclusive_scan(temp, v, v, tilecraft::Sum{}, carry);
    } else {  // the last tile: only its first cols - c0 items take part
      tilecraft::block_inclusive_scan(temp, v, v, tilecraft::Sum{}, tilecraft::ValidItems{cols - c0}, carry);
    }
#pragma unroll
    for (int i = 0; i < items; ++i) {
      const int c = c0 + t * items + i;
      if (c < cols) sums[r * ld + c] = v[i];
    }
  }
}

int main() {
  if (!example::have_gpu("block_scan_in_kernel")) return 0;
  const int rows = 300, cols = 10007, ld = 10016;  // 19 full tiles and a partial one a row
  const std::size_t n = static_cast<std::size_t>(rows) * ld;
  std::vector<int> h(n, 0);
  std::uint64_t state = 20261130;
  for (auto& x : h) {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    x = static_cast<int>((state >> 40) % 2001) - 1000;  // |sums| < 10^7: no int overflow
  }
  int* a = example::device_copy(h);
  int* sums = nullptr;
  TILECRAFT_THROW_IF_ERROR(cudaMalloc(&sums, n * sizeof(int)));
  TILECRAFT_THROW_IF_ERROR(cudaMemset(sums, 0x7f, n * sizeof(int)));  // poison: unwritten outputs show
  row_running_sums<<<rows, threads>>>(a, sums, cols, ld);
  TILECRAFT_THROW_IF_ERROR(cudaGetLastError());
  std::vector<int> got(n);
  TILECRAFT_THROW_IF_ERROR(cudaMemcpy(got.data(), sums, n * sizeof(int), cudaMemcpyDeviceToHost));
  std::size_t wrong = 0;
  for (int r = 0; r < rows; ++r) {
    std::int64_t running = 0;
    for (int c = 0; c < cols; ++c) {
      running += h[static_cast<std::size_t>(r) * ld + c];
      wrong += got[static_cast<std::size_t>(r) * ld + c] != running;
    }
    for (int c = cols; c < ld; ++c) wrong += got[static_cast<std::size_t>(r) * ld + c] != 0x7f7f7f7f;  // untouched
  }
  std::printf("  %d rows of %d ints (row pitch %d), running sums by tile: %zu wrong  %s\n", rows, cols, ld, wrong,
              example::verdict(wrong == 0));
  TILECRAFT_THROW_IF_ERROR(cudaFree(a));
  TILECRAFT_THROW_IF_ERROR(cudaFree(sums));
  return example::exit_status();
}
