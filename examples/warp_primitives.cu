// The warp level inside your own kernel: one warp per row of a matrix of ints, any row length.
// Each warp walks its row 32 values at a time and, with no shared memory and no barrier:
//   - writes the row's running sums: warp_inclusive_scan gives each lane its prefix within the
//     chunk and, in every lane, the chunk's total, which carries into the next chunk;
//   - compacts the row's positive values to the front of the output row, in order: each lane's
//     slot is warp_exclusive_scan of the keep flags, the chunk's count a warp_all_reduce;
//   - finds the row's largest value with warp_all_reduce and Max, and broadcasts the first
//     chunk's first value with shuffle_index;
//   - writes each value's difference from its left neighbour (shuffle_up; the chunk's first lane
//     takes the previous chunk's last value, carried with shuffle_index), and sums the row once
//     more by hand with shuffle_down (the tree warp_reduce runs: lane 0 ends with the chunk's sum).
// The host checks every output.
#include <algorithm>
#include <climits>
#include <cstdio>
#include <vector>

#include <tilecraft/util/functional.cuh>
#include <tilecraft/warp/shuffle.cuh>
#include <tilecraft/warp/warp_reduce.cuh>
#include <tilecraft/warp/warp_scan.cuh>

#include "example_util.cuh"

__global__ void row_warps(const int* a, int rows, int cols, int* sums, int* kept, int* kept_count, int* row_max,
                          int* first, int* diffs, int* totals) {
  const int warp = static_cast<int>((blockIdx.x * blockDim.x + threadIdx.x) / 32);
  const int lane = static_cast<int>(threadIdx.x % 32);
  if (warp >= rows) return;  // (whole warps leave together: blockDim.x is a multiple of 32)
  const int* row = a + static_cast<long long>(warp) * cols;
  int carry = 0, count = 0, best = INT_MIN, previous = 0, total = 0;
  for (int c = 0; c < cols; c += 32) {
    const bool inside = c + lane < cols;
    const int v = inside ? row[c + lane] : 0;
    int chunk_total = 0;
    const int running = tilecraft::warp_inclusive_scan(v, tilecraft::Sum{}, chunk_total);  // every lane
    if (inside) sums[static_cast<long long>(warp) * cols + c + lane] = carry + running;
    carry += chunk_total;
    const int keep = inside && v > 0 ? 1 : 0;
    const int slot = tilecraft::warp_exclusive_scan(keep, tilecraft::Sum{}, 0);  // lane 0: 0
    if (keep) kept[static_cast<long long>(warp) * cols + count + slot] = v;
    count += tilecraft::warp_all_reduce(keep, tilecraft::Sum{});
    best = max(best, tilecraft::warp_all_reduce(inside ? v : INT_MIN, tilecraft::Max{}));
    if (c == 0) {
      const int head = tilecraft::shuffle_index(v, 0);  // lane 0's value in every lane
      if (lane == 31) first[warp] = head;
    }
    // The lane below's value (lane 0 gets its own back: it has none below in the warp).
    const int left = tilecraft::shuffle_up(v, 1);
    if (inside) diffs[static_cast<long long>(warp) * cols + c + lane] = v - (lane == 0 ? previous : left);
    previous = tilecraft::shuffle_index(v, 31);  // the next chunk's lane 0 neighbour
    int chunk_sum = v;                           // (0 in the lanes past the row's end)
    for (unsigned d = 16; d > 0; d /= 2) chunk_sum += tilecraft::shuffle_down(chunk_sum, d);
    total += chunk_sum;  // (the chunk's sum in lane 0 only)
  }
  if (lane == 0) {
    kept_count[warp] = count;
    row_max[warp] = best;
    totals[warp] = total;
  }
}

int main() {
  if (!example::have_gpu("warp_primitives")) return 0;
  const int rows = 1000, cols = 203;  // a row is six full chunks and a partial one
  const std::size_t n = static_cast<std::size_t>(rows) * cols;
  std::vector<int> h(n);
  for (std::size_t i = 0; i < n; ++i) h[i] = static_cast<int>((i * 2654435761u) % 201) - 100;
  int *a = nullptr, *sums = nullptr, *kept = nullptr, *kept_count = nullptr, *row_max = nullptr, *first = nullptr;
  int *diffs = nullptr, *totals = nullptr;
  TILECRAFT_THROW_IF_ERROR(cudaMalloc(&a, n * sizeof(int)));
  TILECRAFT_THROW_IF_ERROR(cudaMalloc(&sums, n * sizeof(int)));
  TILECRAFT_THROW_IF_ERROR(cudaMalloc(&kept, n * sizeof(int)));
  TILECRAFT_THROW_IF_ERROR(cudaMalloc(&kept_count, rows * sizeof(int)));
  TILECRAFT_THROW_IF_ERROR(cudaMalloc(&row_max, rows * sizeof(int)));
  TILECRAFT_THROW_IF_ERROR(cudaMalloc(&first, rows * sizeof(int)));
  TILECRAFT_THROW_IF_ERROR(cudaMalloc(&diffs, n * sizeof(int)));
  TILECRAFT_THROW_IF_ERROR(cudaMalloc(&totals, rows * sizeof(int)));
  TILECRAFT_THROW_IF_ERROR(cudaMemcpy(a, h.data(), n * sizeof(int), cudaMemcpyHostToDevice));
  const int threads = 256, blocks = (rows * 32 + threads - 1) / threads;
  row_warps<<<blocks, threads>>>(a, rows, cols, sums, kept, kept_count, row_max, first, diffs, totals);
  TILECRAFT_THROW_IF_ERROR(cudaGetLastError());
  std::vector<int> got_sums(n), got_kept(n), got_count(rows), got_max(rows), got_first(rows), got_diffs(n),
      got_totals(rows);
  TILECRAFT_THROW_IF_ERROR(cudaMemcpy(got_sums.data(), sums, n * sizeof(int), cudaMemcpyDeviceToHost));
  TILECRAFT_THROW_IF_ERROR(cudaMemcpy(got_kept.data(), kept, n * sizeof(int), cudaMemcpyDeviceToHost));
  TILECRAFT_THROW_IF_ERROR(cudaMemcpy(got_count.data(), kept_count, rows * sizeof(int), cudaMemcpyDeviceToHost));
  TILECRAFT_THROW_IF_ERROR(cudaMemcpy(got_max.data(), row_max, rows * sizeof(int), cudaMemcpyDeviceToHost));
  TILECRAFT_THROW_IF_ERROR(cudaMemcpy(got_first.data(), first, rows * sizeof(int), cudaMemcpyDeviceToHost));
  TILECRAFT_THROW_IF_ERROR(cudaMemcpy(got_diffs.data(), diffs, n * sizeof(int), cudaMemcpyDeviceToHost));
  TILECRAFT_THROW_IF_ERROR(cudaMemcpy(got_totals.data(), totals, rows * sizeof(int), cudaMemcpyDeviceToHost));
  int wrong = 0;
  for (int r = 0; r < rows; ++r) {
    const std::size_t base = static_cast<std::size_t>(r) * cols;
    int running = 0, count = 0, best = INT_MIN;
    for (int c = 0; c < cols; ++c) {
      const int v = h[base + c];
      running += v;
      wrong += got_sums[base + c] != running;
      if (v > 0) wrong += got_kept[base + count++] != v;
      best = std::max(best, v);
      wrong += got_diffs[base + c] != v - (c == 0 ? 0 : h[base + c - 1]);
    }
    wrong += got_totals[r] != running;
    wrong += got_count[r] != count;
    wrong += got_max[r] != best;
    wrong += got_first[r] != h[base];
  }
  std::printf(
      "%d rows of %d ints, a warp each: running sums, positives compacted, maxima, differences: %d wrong (%s)\n", rows,
      cols, wrong, wrong == 0 ? "ok" : "WRONG");
  for (int* p : {a, sums, kept, kept_count, row_max, first, diffs, totals}) TILECRAFT_THROW_IF_ERROR(cudaFree(p));
  return wrong == 0 ? 0 : 1;
}
