// Using block_histogram inside your own kernel: the luminance histogram of an RGBA image in
// 64 bins, fused with the pixel conversion, so the luminance is never written to memory. Each
// thread converts four pixels and adds their bins as an array; the block's counters
// (per-lane counters in shared memory: conflict-free whatever the image) are merged into the
// global histogram with one atomicAdd per non-zero bin.
//
// When the values already sit in memory, the device-level calls count them in one call:
// tilecraft::histogram_even for bins of one width, tilecraft::histogram_range for bins between
// levels you give. The example ends with histogram_range over the same image's luminance (one
// value per pixel, 0 ... 255) in 16 bins whose levels are the squares 0, 1, 4, ..., 256: narrow
// bins in the shadows, wide ones in the highlights.
#include <cstdint>
#include <cstdio>
#include <vector>

#include <tilecraft/block/block_histogram.cuh>
#include <tilecraft/device/histogram.cuh>

#include "example_util.cuh"

constexpr int bins = 64;
constexpr int threads = 256;
constexpr int pixels_per_thread = 4;

// Rec. 601 luma in 0 ... 255 (integer weights summing to 256), then 4 values per bin.
__host__ __device__ inline int luma(uchar4 p) { return (77 * p.x + 150 * p.y + 29 * p.z) >> 8; }
__host__ __device__ inline int luma_bin(uchar4 p) { return luma(p) / 4; }

__global__ void __launch_bounds__(threads) luma_histogram(const uchar4* image, int pixels, unsigned* hist) {
  // Caller-owned shared counters: 64 bins x 32 lanes x 4 bytes = 8 KiB.
  __shared__ tilecraft::BlockHistogramStorage<bins, threads> counters;
  tilecraft::block_histogram_init(counters);  // zeroes, then a barrier
  for (int base = blockIdx.x * threads * pixels_per_thread; base < pixels;
       base += gridDim.x * threads * pixels_per_thread) {
    int items[pixels_per_thread];
    for (int k = 0; k < pixels_per_thread; ++k) {
      const int i = base + k * threads + threadIdx.x;   // coalesced
      items[k] = i < pixels ? luma_bin(image[i]) : -1;  // -1: not counted
    }
    tilecraft::block_histogram_add(counters, items);
  }
  tilecraft::block_histogram_merge(counters, hist);  // a barrier, then one atomic per bin
}

int main() {
  if (!example::have_gpu("histogram_in_kernel")) return 0;
  const int width = 1920, height = 1080, pixels = width * height;
  std::vector<uchar4> h(static_cast<std::size_t>(pixels));
  std::vector<unsigned> ref(bins, 0);
  for (int y = 0; y < height; ++y) {
    for (int x = 0; x < width; ++x) {
      // A gradient with a bright disc: a skewed histogram.
      const bool disc = (x - 960) * (x - 960) + (y - 540) * (y - 540) < 300 * 300;
      const auto r = static_cast<unsigned char>(disc ? 250 : x * 255 / width);
      const auto g = static_cast<unsigned char>(disc ? 240 : y * 255 / height);
      uchar4 p;
      p.x = r;
      p.y = g;
      p.z = static_cast<unsigned char>((x + y) & 0xff);
      p.w = 255;
      h[static_cast<std::size_t>(y) * width + x] = p;
      ++ref[static_cast<std::size_t>(luma_bin(p))];
    }
  }
  uchar4* image = nullptr;
  unsigned* hist = nullptr;
  TILECRAFT_THROW_IF_ERROR(cudaMalloc(&image, h.size() * sizeof(uchar4)));
  TILECRAFT_THROW_IF_ERROR(cudaMalloc(&hist, bins * sizeof(unsigned)));
  TILECRAFT_THROW_IF_ERROR(cudaMemcpy(image, h.data(), h.size() * sizeof(uchar4), cudaMemcpyHostToDevice));
  TILECRAFT_THROW_IF_ERROR(cudaMemset(hist, 0, bins * sizeof(unsigned)));
  luma_histogram<<<264, threads>>>(image, pixels, hist);
  TILECRAFT_THROW_IF_ERROR(cudaGetLastError());
  std::vector<unsigned> got(bins);
  TILECRAFT_THROW_IF_ERROR(cudaMemcpy(got.data(), hist, bins * sizeof(unsigned), cudaMemcpyDeviceToHost));
  const bool ok = got == ref;
  std::printf("luminance histogram of a %d x %d image, %d bins: %s\n", width, height, bins, ok ? "ok" : "WRONG");
  for (int b = 0; b < bins; b += 8) {
    std::printf("  bins %2d-%2d:", b, b + 7);
    for (int k = 0; k < 8; ++k) std::printf(" %7u", got[static_cast<std::size_t>(b + k)]);
    std::printf("\n");
  }

  // The device level: the luminance as an array, 16 bins between the levels 0, 1, 4, ..., 256.
  constexpr int range_bins = 16;
  std::vector<int> lumas(h.size()), levels(range_bins + 1);
  for (int i = 0; i <= range_bins; ++i) levels[static_cast<std::size_t>(i)] = i * i;
  std::vector<unsigned> range_ref(range_bins, 0);
  for (std::size_t i = 0; i < h.size(); ++i) {
    lumas[i] = luma(h[i]);
    int b = 0;
    while (lumas[i] >= levels[static_cast<std::size_t>(b + 1)]) ++b;  // levels[b] <= luma < levels[b + 1]
    ++range_ref[static_cast<std::size_t>(b)];
  }
  int *d_lumas = nullptr, *d_levels = nullptr;
  unsigned* d_range = nullptr;
  TILECRAFT_THROW_IF_ERROR(cudaMalloc(&d_lumas, lumas.size() * sizeof(int)));
  TILECRAFT_THROW_IF_ERROR(cudaMalloc(&d_levels, levels.size() * sizeof(int)));
  TILECRAFT_THROW_IF_ERROR(cudaMalloc(&d_range, range_bins * sizeof(unsigned)));
  TILECRAFT_THROW_IF_ERROR(cudaMemcpy(d_lumas, lumas.data(), lumas.size() * sizeof(int), cudaMemcpyHostToDevice));
  TILECRAFT_THROW_IF_ERROR(cudaMemcpy(d_levels, levels.data(), levels.size() * sizeof(int), cudaMemcpyHostToDevice));
  std::size_t temp_bytes = 0;
  TILECRAFT_THROW_IF_ERROR(
      tilecraft::histogram_range(nullptr, temp_bytes, d_lumas, d_range, range_bins, d_levels, pixels));
  void* temp = nullptr;
  TILECRAFT_THROW_IF_ERROR(cudaMalloc(&temp, temp_bytes));
  TILECRAFT_THROW_IF_ERROR(
      tilecraft::histogram_range(temp, temp_bytes, d_lumas, d_range, range_bins, d_levels, pixels));
  std::vector<unsigned> range_got(range_bins);
  TILECRAFT_THROW_IF_ERROR(
      cudaMemcpy(range_got.data(), d_range, range_bins * sizeof(unsigned), cudaMemcpyDeviceToHost));
  const bool range_ok = range_got == range_ref;
  std::printf("histogram_range of the luminance, %d bins between the squares 0 ... 256: %s\n", range_bins,
              range_ok ? "ok" : "WRONG");
  for (int b = 0; b < range_bins; b += 8) {
    std::printf("  bins %2d-%2d:", b, b + 7);
    for (int k = 0; k < 8; ++k) std::printf(" %7u", range_got[static_cast<std::size_t>(b + k)]);
    std::printf("\n");
  }
  TILECRAFT_THROW_IF_ERROR(cudaFree(temp));
  TILECRAFT_THROW_IF_ERROR(cudaFree(d_range));
  TILECRAFT_THROW_IF_ERROR(cudaFree(d_levels));
  TILECRAFT_THROW_IF_ERROR(cudaFree(d_lumas));
  TILECRAFT_THROW_IF_ERROR(cudaFree(image));
  TILECRAFT_THROW_IF_ERROR(cudaFree(hist));
  return ok && range_ok ? 0 : 1;
}
