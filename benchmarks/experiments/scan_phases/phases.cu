// Where a tile of the scan spends its time: the single pass (tilecraft::detail::scan_run with the
// large default tile, whatever the size; the dispatch would take other forms below 2^23) of f32
// and int, against a copy of the library whose scan kernel stamps clock64() at the phases of each
// two-pass tile (instrument.py), after one warm-up, with L2 flushed before the measured run.
// Prints each phase's mean over the tiles, in microseconds at the SM clock, the tile's lifetime
// (ticket to stores issued), the kernel time by events, and the mean number of tiles alive on an
// SM (lifetimes summed over the tiles / (kernel time x SMs)). `timeline [log2 n ...]` (default 24
// 26 28, f32): each tile's %globaltimer stamps instead (ticket, loaded, prefix known, stores
// issued): the tiles alive over time, and per generation of tickets (one resident grid's worth)
// the mean load, wait for the prefix and the rest: whether the first generation's look-backs,
// the last wave's tail or the start cost what a size's time has above its share of 2^28's.
// run.sh builds it.
#include <tilecraft/device/scan.cuh>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "../experiment_util.cuh"

template <class T>
__global__ void fill(T* p, long long n) {
  for (long long i = blockIdx.x * 256ll + threadIdx.x; i < n; i += 256ll * gridDim.x) {
    const unsigned h = index_hash(i);
    p[i] = static_cast<T>(static_cast<int>(h >> 24) - 128);
  }
}

// The single pass at every size (the library's large tile).
template <class T>
cudaError_t single_pass(void* temp, std::size_t& bytes, const T* in, T* out, long long n, cudaStream_t s) {
  namespace d = tilecraft::detail;
  return d::scan_run<d::DefaultScanPolicyLarge<T, T>, false>(temp, bytes, in, out, static_cast<std::int64_t>(n),
                                                             tilecraft::Sum{}, T{}, s);
}

// The measured single-pass scan of n items from fill's data: a warm-up, reset() (zeroes what the
// instrumented kernel adds to), the L2 flushed, then the run; returns its milliseconds by events.
template <class T, class Reset>
float measured_scan(T* in, T* out, long long n, char* flush, void* temp, cudaStream_t s, Reset reset) {
  fill<<<1024, 256, 0, s>>>(in, n);
  CK(cudaGetLastError());
  std::size_t bytes = std::size_t{64} << 20;
  CK(single_pass(temp, bytes, in, out, n, s));  // warm-up
  reset();
  CK(cudaMemsetAsync(flush, 1, std::size_t{256} << 20, s));
  cudaEvent_t a, b;
  CK(cudaEventCreate(&a));
  CK(cudaEventCreate(&b));
  CK(cudaEventRecord(a, s));
  CK(single_pass(temp, bytes, in, out, n, s));
  CK(cudaEventRecord(b, s));
  CK(cudaEventSynchronize(b));
  float ms = 0;
  CK(cudaEventElapsedTime(&ms, a, b));
  CK(cudaEventDestroy(a));
  CK(cudaEventDestroy(b));
  return ms;
}

// The timeline of one single-pass scan of 2^lg floats (see the top).
void timeline(double lg, char* flush, void* temp, cudaStream_t s) {
  namespace d = tilecraft::detail;
  const long long n = static_cast<long long>(std::llround(std::pow(2.0, lg)));
  const long long tile_items = d::DefaultScanPolicyLarge<float, float>::tile_items;
  const long long tiles = std::min<long long>((n + tile_items - 1) / tile_items, d::timeline_tiles);
  float *in, *out;
  CK(cudaMalloc(&in, n * sizeof(float)));
  CK(cudaMalloc(&out, n * sizeof(float)));
  void* marks = nullptr;
  CK(cudaGetSymbolAddress(&marks, d::tile_ns));
  const float ms = measured_scan(in, out, n, flush, temp, s, [&] {
    CK(cudaMemsetAsync(marks, 0, sizeof(unsigned long long) * 4 * d::timeline_tiles, s));
  });
  std::vector<unsigned long long> t(static_cast<std::size_t>(4 * tiles));
  CK(cudaMemcpy(t.data(), marks, t.size() * sizeof(unsigned long long), cudaMemcpyDeviceToHost));
  const auto at = [&](long long i, int k) { return static_cast<double>(t[static_cast<std::size_t>(4 * i + k)]); };
  double t0 = at(0, 0), end = 0;
  for (long long i = 0; i < tiles; ++i) t0 = std::min(t0, at(i, 0)), end = std::max(end, at(i, 3));
  // The most tiles alive at once (a ticket taken, the stores not yet issued): the resident grid.
  std::vector<std::pair<double, int>> events;
  for (long long i = 0; i < tiles; ++i) events.push_back({at(i, 0), 1}), events.push_back({at(i, 3), -1});
  std::sort(events.begin(), events.end());
  int alive = 0, resident = 1;
  for (auto& e : events) resident = std::max(resident, alive += e.second);
  // The timer's step: the smallest positive difference between stamps.
  std::vector<double> all;
  for (long long i = 0; i < tiles; ++i)
    for (int k = 0; k < 4; ++k) all.push_back(at(i, k));
  std::sort(all.begin(), all.end());
  double step = 1e30;
  for (std::size_t i = 1; i < all.size(); ++i)
    if (all[i] > all[i - 1]) step = std::min(step, all[i] - all[i - 1]);
  std::printf(
      "f32 2^%.2f: %lld tiles, %.1f us by events, %.1f us first ticket to last store; most alive at once %d "
      "(%.2f generations); timer step %.0f ns\n",
      lg, tiles, ms * 1e3, (end - t0) * 1e-3, resident, static_cast<double>(tiles) / resident, step);
  // Per generation (tickets [g R, (g + 1) R)): mean start, load, wait for the prefix, the rest, us.
  std::printf("  %-12s %8s %10s %8s %8s %8s %8s\n", "generation", "tiles", "start", "load", "wait", "rest", "life");
  const long long gens = (tiles + resident - 1) / resident;
  for (long long g = 0; g < gens; ++g) {
    if (gens > 8 && g >= 3 && g < gens - 2) {
      if (g == 3) std::printf("  ...\n");
      continue;
    }
    double st = 0, ld = 0, wt = 0, rs = 0;
    long long c = 0;
    for (long long i = g * resident; i < std::min(tiles, (g + 1) * resident); ++i, ++c) {
      st += at(i, 0) - t0, ld += at(i, 1) - at(i, 0), wt += at(i, 2) - at(i, 1), rs += at(i, 3) - at(i, 2);
    }
    std::printf("  %-12lld %8lld %10.2f %8.2f %8.2f %8.2f %8.2f\n", g, c, st / c * 1e-3, ld / c * 1e-3, wt / c * 1e-3,
                rs / c * 1e-3, (ld + wt + rs) / c * 1e-3);
  }
  // Tiles alive at 20 points in time, and how long the grid ran below 90% of its most.
  std::printf("  alive over time:");
  for (int q = 0; q < 20; ++q) {
    const double when = t0 + (end - t0) * (q + 0.5) / 20;
    int c = 0;
    for (long long i = 0; i < tiles; ++i) c += at(i, 0) <= when && when < at(i, 3);
    std::printf(" %d", c);
  }
  double last_ticket = 0;
  for (long long i = 0; i < tiles; ++i) last_ticket = std::max(last_ticket, at(i, 0));
  double first_store = 1e300;
  for (long long i = 0; i < tiles; ++i) first_store = std::min(first_store, at(i, 3));
  std::printf(
      "\n  first store %.2f us after the first ticket; last ticket %.2f us, last store %.2f us: the tail %.2f us\n",
      (first_store - t0) * 1e-3, (last_ticket - t0) * 1e-3, (end - t0) * 1e-3, (end - last_ticket) * 1e-3);
  CK(cudaFree(in));
  CK(cudaFree(out));
}

template <class T>
void phases(const char* type, int lg, char* flush, void* temp, cudaStream_t s) {
  const long long n = 1ll << lg;
  T *in, *out;
  CK(cudaMalloc(&in, n * sizeof(T)));
  CK(cudaMalloc(&out, n * sizeof(T)));
  const float ms = measured_scan(in, out, n, flush, temp, s, [&] {
    const unsigned long long zero[64] = {};
    CK(cudaMemcpyToSymbolAsync(tilecraft::detail::phase_cycles, zero, 8 * sizeof(zero[0]), 0, cudaMemcpyHostToDevice,
                               s));
    CK(cudaMemcpyToSymbolAsync(tilecraft::detail::lb_stats, zero, 8 * sizeof(zero[0]), 0, cudaMemcpyHostToDevice, s));
    CK(cudaMemcpyToSymbolAsync(tilecraft::detail::lb_hist, zero, sizeof(zero), 0, cudaMemcpyHostToDevice, s));
    CK(cudaStreamSynchronize(s));  // (zero is on this lambda's stack)
  });
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

int main(int argc, char** argv) {
  cudaStream_t s;
  CK(cudaStreamCreate(&s));
  char* flush;
  CK(cudaMalloc(&flush, 256 << 20));
  void* temp;
  CK(cudaMalloc(&temp, std::size_t{64} << 20));
  if (argc > 1 && std::strcmp(argv[1], "timeline") == 0) {
    std::vector<double> logs;
    for (int i = 2; i < argc; ++i) logs.push_back(std::atof(argv[i]));
    if (logs.empty()) logs = {24, 26, 28};
    for (double lg : logs) timeline(lg, flush, temp, s);
    return 0;
  }
  for (int lg : {22, 26, 28}) {
    phases<float>("f32", lg, flush, temp, s);
    phases<int>("i32", lg, flush, temp, s);
  }
  return 0;
}
