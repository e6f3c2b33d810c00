// Where a tile of the scan spends its time: tilecraft::inclusive_scan of f32 and int (2^22,
// 2^26, 2^28 items) against a copy of the library whose scan kernel stamps clock64() at the
// phases of each two-pass tile (instrument.py), after one warm-up, with L2 flushed before the
// measured run. Prints each phase's mean over the tiles, in microseconds at the SM clock, the
// tile's lifetime (ticket to stores issued), the kernel time by events, and the mean number of
// tiles alive on an SM (lifetimes summed over the tiles / (kernel time x SMs)). run.sh builds it.
#include <tilecraft/device/scan.cuh>

#include <cstdio>

#include "../experiment_util.cuh"

template <class T>
__global__ void fill(T* p, long long n) {
  for (long long i = blockIdx.x * 256ll + threadIdx.x; i < n; i += 256ll * gridDim.x) {
    const unsigned h = index_hash(i);
    p[i] = static_cast<T>(static_cast<int>(h >> 24) - 128);
  }
}

template <class T>
void phases(const char* type, int lg, char* flush, void* temp, cudaStream_t s) {
  const long long n = 1ll << lg;
  T *in, *out;
  CK(cudaMalloc(&in, n * sizeof(T)));
  CK(cudaMalloc(&out, n * sizeof(T)));
  fill<<<1024, 256, 0, s>>>(in, n);
  CK(cudaGetLastError());
  std::size_t bytes = std::size_t{64} << 20;
  CK(tilecraft::inclusive_scan(temp, bytes, in, out, n, tilecraft::Sum{}, s));  // warm-up
  unsigned long long zero[8] = {};
  CK(cudaMemcpyToSymbolAsync(tilecraft::detail::phase_cycles, zero, sizeof(zero), 0, cudaMemcpyHostToDevice, s));
  CK(cudaMemcpyToSymbolAsync(tilecraft::detail::lb_stats, zero, sizeof(zero), 0, cudaMemcpyHostToDevice, s));
  unsigned long long zero64[64] = {};
  CK(cudaMemcpyToSymbolAsync(tilecraft::detail::lb_hist, zero64, sizeof(zero64), 0, cudaMemcpyHostToDevice, s));
  CK(cudaMemsetAsync(flush, 1, std::size_t{256} << 20, s));
  cudaEvent_t a, b;
  CK(cudaEventCreate(&a));
  CK(cudaEventCreate(&b));
  CK(cudaEventRecord(a, s));
  CK(tilecraft::inclusive_scan(temp, bytes, in, out, n, tilecraft::Sum{}, s));
  CK(cudaEventRecord(b, s));
  CK(cudaEventSynchronize(b));
  float ms = 0;
  CK(cudaEventElapsedTime(&ms, a, b));
  unsigned long long c[8];
  CK(cudaMemcpyFromSymbol(c, tilecraft::detail::phase_cycles, sizeof(c)));
  int khz = 0, sms = 0;
  CK(cudaDeviceGetAttribute(&khz, cudaDevAttrClockRate, 0));
  CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  const double tiles = static_cast<double>(c[7]);
  const double us_per_cycle = 1e3 / khz;
  const char* names[6] = {"ticket", "load", "fold", "scan + look-back", "pass 2", "stores"};
  double life = 0;
  std::printf("%s 2^%d: %.0f tiles (two-pass), %.1f us by events\n", type, lg, tiles, ms * 1e3);
  if (tiles == 0) {
    std::printf("  (no two-pass tile ran at this size)\n");
  } else {
    for (int i = 0; i < 6; ++i) {
      const double us = c[i] / tiles * us_per_cycle;
      life += us;
      std::printf("  %-18s %7.3f us a tile\n", names[i], us);
    }
    std::printf("  %-18s %7.3f us a tile; tiles alive on an SM: %.2f on average\n", "lifetime", life,
                life * tiles / (ms * 1e3 * sms));
    unsigned long long lb[8], hist[64];
    CK(cudaMemcpyFromSymbol(lb, tilecraft::detail::lb_stats, sizeof(lb)));
    CK(cudaMemcpyFromSymbol(hist, tilecraft::detail::lb_hist, sizeof(hist)));
    const double calls = lb[1] > 0 ? static_cast<double>(lb[1]) : 1.0;
    std::printf(
        "  look-back callback  %7.3f us a tile (%llu calls): to window 0 ready %.3f us; windows %.2f, polls %.2f a "
        "tile\n",
        lb[0] / calls * us_per_cycle, lb[1], lb[4] / calls * us_per_cycle, lb[2] / calls, lb[3] / calls);
    std::printf("  stopped in window:");
    for (int w = 0; w < 64; ++w)
      if (hist[w] != 0) std::printf(" %d:%.1f%%", w, 100.0 * hist[w] / calls);
    std::printf("\n");
  }
  CK(cudaFree(in));
  CK(cudaFree(out));
}

int main() {
  cudaStream_t s;
  CK(cudaStreamCreate(&s));
  char* flush;
  CK(cudaMalloc(&flush, 256 << 20));
  void* temp;
  CK(cudaMalloc(&temp, std::size_t{64} << 20));
  for (int lg : {22, 26, 28}) {
    phases<float>("f32", lg, flush, temp, s);
    phases<int>("i32", lg, flush, temp, s);
  }
  return 0;
}
