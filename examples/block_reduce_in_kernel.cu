// Using block_reduce inside your own kernel: the L2 norm of every row of a matrix, one block
// per row, any row length. The block's threads stride over the row, each keeps a partial sum
// of squares, and block_reduce combines the partials; thread 0 writes the row's norm. Then the
// rows scaled to unit norm, where every thread needs the norm: block_all_reduce returns it to
// all of them.
#include <cmath>
#include <cstdio>
#include <vector>

#include <tilecraft/block/block_reduce.cuh>
#include <tilecraft/util/functional.cuh>

#include "example_util.cuh"

template <int BlockThreads>
__global__ void __launch_bounds__(BlockThreads) row_norms(const float* a, int cols, float* norms) {
  // Caller-owned temp storage: BlockThreads / 32 + 1 floats of shared memory.
  __shared__ tilecraft::BlockReduceStorage<float, BlockThreads> temp;
  const float* row = a + static_cast<std::size_t>(blockIdx.x) * cols;
  float partial = 0.0f;
  for (int c = threadIdx.x; c < cols; c += BlockThreads) partial += row[c] * row[c];
  const float sum = tilecraft::block_reduce(temp, partial, tilecraft::Sum{});  // valid in thread 0
  if (threadIdx.x == 0) norms[blockIdx.x] = std::sqrt(sum);
}

template <int BlockThreads>
__global__ void __launch_bounds__(BlockThreads) normalize_rows(const float* a, int cols, float* out) {
  __shared__ tilecraft::BlockReduceStorage<float, BlockThreads> temp;
  const std::size_t first = static_cast<std::size_t>(blockIdx.x) * cols;
  float partial = 0.0f;
  for (int c = threadIdx.x; c < cols; c += BlockThreads) partial += a[first + c] * a[first + c];
  const float scale = 1.0f / std::sqrt(tilecraft::block_all_reduce(temp, partial, tilecraft::Sum{}));  // every thread
  for (int c = threadIdx.x; c < cols; c += BlockThreads) out[first + c] = a[first + c] * scale;
}

int main() {
  if (!example::have_gpu("block_reduce_in_kernel")) return 0;
  const int rows = 1000, cols = 777;
  std::vector<float> h(static_cast<std::size_t>(rows) * cols);
  for (std::size_t i = 0; i < h.size(); ++i) h[i] = static_cast<float>((i * 2654435761u) % 1000) / 1000.0f - 0.5f;
  float *a = nullptr, *norms = nullptr, *unit = nullptr;
  TILECRAFT_THROW_IF_ERROR(cudaMalloc(&a, h.size() * sizeof(float)));
  TILECRAFT_THROW_IF_ERROR(cudaMalloc(&unit, h.size() * sizeof(float)));
  TILECRAFT_THROW_IF_ERROR(cudaMalloc(&norms, rows * sizeof(float)));
  TILECRAFT_THROW_IF_ERROR(cudaMemcpy(a, h.data(), h.size() * sizeof(float), cudaMemcpyHostToDevice));
  row_norms<256><<<rows, 256>>>(a, cols, norms);
  TILECRAFT_THROW_IF_ERROR(cudaGetLastError());
  normalize_rows<128><<<rows, 128>>>(a, cols, unit);
  TILECRAFT_THROW_IF_ERROR(cudaGetLastError());
  std::vector<float> got(rows), got_unit(h.size());
  TILECRAFT_THROW_IF_ERROR(cudaMemcpy(got.data(), norms, rows * sizeof(float), cudaMemcpyDeviceToHost));
  TILECRAFT_THROW_IF_ERROR(cudaMemcpy(got_unit.data(), unit, h.size() * sizeof(float), cudaMemcpyDeviceToHost));
  double worst = 0, worst_unit = 0;
  for (int r = 0; r < rows; ++r) {
    double ref = 0;
    for (int c = 0; c < cols; ++c)
      ref += double(h[static_cast<std::size_t>(r) * cols + c]) * h[static_cast<std::size_t>(r) * cols + c];
    worst = std::fmax(worst, std::fabs(got[r] - std::sqrt(ref)) / std::sqrt(ref));
    for (int c = 0; c < cols; ++c) {
      const std::size_t i = static_cast<std::size_t>(r) * cols + c;
      worst_unit = std::fmax(worst_unit, std::fabs(got_unit[i] - h[i] / std::sqrt(ref)));
    }
  }
  const bool ok = worst < 1e-5 && worst_unit < 1e-6;
  std::printf("row norms of a %d x %d matrix: worst relative error %.2e; unit rows: worst error %.2e (%s)\n", rows,
              cols, worst, worst_unit, ok ? "ok" : "WRONG");
  TILECRAFT_THROW_IF_ERROR(cudaFree(a));
  TILECRAFT_THROW_IF_ERROR(cudaFree(norms));
  TILECRAFT_THROW_IF_ERROR(cudaFree(unit));
  return ok ? 0 : 1;
}
