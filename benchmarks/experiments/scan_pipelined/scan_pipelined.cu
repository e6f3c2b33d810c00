// A prototype, measured and not landed (benchmarks/TUNING.md, "Scan", "Measured and dropped":
// slower than the library's one block per tile at every size from 2^24): the single-pass scan
// (float inclusive sum) as a persistent, warp-specialized kernel whose blocks keep loading while
// a tile's look-back waits. It answered the TUNING.md finding that the look-back costs about 15%
// at 2^28 because a tile that waits holds its block slot with no loads in flight.
//
// Each block: Threads compute threads and one look-back warp, a ring of Stages tiles in shared
// memory. The compute warps, per iteration j (slot s = j mod Stages):
//   take a ticket for a new tile and start its cp.async load (Stages - 2 tiles ahead);
//   wait for tile j's load, fold each thread's run and scan the runs' totals (pass 1);
//   hand tile j's aggregate to the look-back warp (bar.arrive on the slot's "aggregate" barrier);
//   wait for tile j - 1's exclusive prefix (bar.sync on its "prefix" barrier), rescan each run
//   from it in place (pass 2) and store tile j - 1.
// The compute warps publish each tile's aggregate as soon as pass 1 has it; the look-back warp
// takes the block's tiles in order, looks back (the library's look_back: deterministic, waits in
// place), publishes the inclusive prefix and hands the exclusive one to the compute warps.
// A tile's aggregate goes out whatever else the block waits for, so every ticket taken is
// eventually folded and the lowest unfinished tile can always finish: no deadlock, and no
// reliance on block residency.
// Tickets come from an atomic counter in order. Limits of the prototype: n a multiple of the
// tile, 16-byte aligned arrays, float sums only.
#include <cub/device/device_scan.cuh>
#include <tilecraft/arch/sync_flag.cuh>
#include <tilecraft/device/detail/scan_kernels.cuh>
#include <tilecraft/device/scan.cuh>
#include <tilecraft/memory/copy_async.cuh>
#include <tilecraft/util/functional.cuh>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "../cuda_check.cuh"

namespace td = tilecraft::detail;
namespace ta = tilecraft::arch;

__device__ __forceinline__ void bar_arrive(unsigned id, unsigned threads) {
  asm volatile("bar.arrive %0, %1;" ::"r"(id), "r"(threads) : "memory");
}

template <int Threads, int Items, int Stages, bool Anchored = false>
struct Cfg {
  static constexpr bool anchored = Anchored;
  static_assert(Threads % 32 == 0 && Items % 4 == 0 && Stages >= 3 && 2 + 2 * Stages <= 16);
  static constexpr int threads = Threads;  // compute threads
  static constexpr int items = Items;      // floats per compute thread per tile
  static constexpr int stages = Stages;
  static constexpr int tile = Threads * Items;
  static constexpr int chunks = Items / 4;  // 16-byte chunks per thread
  static constexpr int block = Threads + 32;
  static constexpr int period = chunks > 8 && chunks % 8 == 0 ? chunks : 8;
  static constexpr std::size_t stage_bytes = static_cast<std::size_t>(tile) * 4;
  static constexpr std::size_t smem = stage_bytes * Stages;
  static constexpr unsigned compute_bar = 1;
  __host__ __device__ static constexpr unsigned aggregate_bar(int s) { return 2 + s; }
  __host__ __device__ static constexpr unsigned prefix_bar(int s) { return 2 + Stages + s; }
};

// The anchored look-back (Anchored configurations): the look-back warp knows the inclusive
// prefix of its block's previous tile (the anchor), so tile `tile`'s exclusive prefix is that
// prefix folded in order with the aggregates of the tiles between them (or, from the nearest
// inclusive prefix met among those, that one). It waits for those aggregates only, never for the
// inclusive frontier: in a persistent grid the blocks move in step, so a whole grid's tiles sit
// between a tile and the frontier and waiting in place costs a hop per 32 of them. K windows of
// 32 states are read at once (one round trip for up to 32 K tiles). The same bits as the
// sequential fold: the anchor and every inclusive prefix met are that fold.
constexpr int anchor_windows = 16;
__device__ float anchored_look_back(const td::TileStatus<float>& status, long long tile, long long anchor,
                                    float anchor_value, float* buf) {
  constexpr int K = anchor_windows;
  const int lane = static_cast<int>(threadIdx.x % 32);
  float x = anchor_value;
  for (long long base = anchor + 1; base < tile; base += K * 32) {
    td::TileEntry<float> e[K];
#pragma unroll
    for (int k = 0; k < K; ++k) {
      const long long i = base + k * 32 + lane;
      e[k] = i < tile ? status.load(i) : td::TileEntry<float>{td::tile_aggregate, 0.0f};
    }
    int hi = -1;  // the batch's highest position holding an inclusive prefix
    for (;;) {
      hi = -1;
#pragma unroll
      for (int k = 0; k < K; ++k) {
        const unsigned b = __ballot_sync(0xffffffffu, base + k * 32 + lane < tile && e[k].flag == td::tile_inclusive);
        if (b != 0) hi = k * 32 + 31 - __clz(static_cast<int>(b));
      }
      bool miss = false;
#pragma unroll
      for (int k = 0; k < K; ++k) {
        const long long i = base + k * 32 + lane;
        if (i < tile && k * 32 + lane > hi && e[k].flag == td::tile_invalid) {
          e[k] = status.load(i);
          miss = true;
        }
      }
      if (!__any_sync(0xffffffffu, miss)) break;
      __nanosleep(20);
    }
#pragma unroll
    for (int k = 0; k < K; ++k) buf[k * 32 + lane] = e[k].value;
    __syncwarp();
    if (lane == 0) {
      const int end = static_cast<int>(tile - base < K * 32 ? tile - base : K * 32);
      int from = 0;
      if (hi >= 0) {
        x = buf[hi];
        from = hi + 1;
      }
      for (int i = from; i < end; ++i) x += buf[i];
    }
    x = __shfl_sync(0xffffffffu, x, 0);
    __syncwarp();
  }
  return x;
}

template <class C>
__global__ void __launch_bounds__(C::block)
    scan_pipelined(const float* in, float* out, long long tiles, td::TileStatus<float> status, unsigned* counter) {
  extern __shared__ __align__(16) unsigned char smem[];
  __shared__ long long slot_tile[C::stages];
  __shared__ float slot_aggregate[C::stages];
  __shared__ float slot_prefix[C::stages];
  __shared__ float look_back_buf[C::anchored ? 32 * anchor_windows : 32];
  __shared__ float warp_total[C::threads / 32];
  const int t = static_cast<int>(threadIdx.x);
  const int warp = t / 32, lane = t % 32;
  constexpr unsigned all = C::block;

  if (warp == C::threads / 32) {  // the look-back warp
    long long anchor = -1;
    float anchor_value = 0.0f;
    for (int j = 0;; ++j) {
      const int s = j % C::stages;
      ta::named_barrier_sync(C::aggregate_bar(s), all);
      const long long tile = slot_tile[s];
      if (tile < 0) return;
      const float aggregate = slot_aggregate[s];
      float prefix = 0.0f;  // (tile 0: its compute warps published its inclusive prefix)
      if (tile > 0) {
        if (C::anchored && anchor >= 0) {
          prefix = anchored_look_back(status, tile, anchor, anchor_value, look_back_buf);
        } else {
          prefix = td::look_back<float>(status, tile, tilecraft::Sum{}, look_back_buf);
        }
        if (lane == 0) status.publish(tile, td::tile_inclusive, prefix + aggregate);
      }
      anchor = tile;
      anchor_value = prefix + aggregate;
      if (lane == 0) slot_prefix[s] = prefix;
      __threadfence_block();  // (bar.arrive's ordering made explicit for the hand-off)
      __syncwarp();
      bar_arrive(C::prefix_bar(s), all);
    }
  }

  // The compute warps.
  auto chunk = [&](int s, int c) {
    return reinterpret_cast<uint4*>(smem + s * C::stage_bytes + (td::swizzle_chunk(c, C::period) << 4));
  };
  const uint4* gin = reinterpret_cast<const uint4*>(in);
  uint4* gout = reinterpret_cast<uint4*>(out);
  constexpr int tile_chunks = C::tile / 4;
  // Thread 0 takes each ticket one fill early, so the atomic's round trip to L2 overlaps an
  // iteration instead of delaying the load. (A block then holds a ticket it has not started;
  // it waits only for its own earlier tiles meanwhile, so that adds no cycle.)
  unsigned next_ticket = 0;
  if (t == 0) next_ticket = atomicAdd(counter, 1u);
  auto fill = [&](int s) {  // a new ticket into slot s, its load started (one commit group, maybe empty)
    if (t == 0) {
      slot_tile[s] = next_ticket < tiles ? static_cast<long long>(next_ticket) : -1;
      next_ticket = atomicAdd(counter, 1u);
    }
    ta::named_barrier_sync(C::compute_bar, C::threads);
    const long long tile = slot_tile[s];
    if (tile >= 0) {
      const uint4* g = gin + tile * tile_chunks;
#pragma unroll
      for (int k = 0; k < C::chunks; ++k)
        tilecraft::copy_async<16>(chunk(s, k * C::threads + t), g + k * C::threads + t);
    }
    tilecraft::copy_async_commit();
  };
#pragma unroll 1
  for (int p = 0; p < C::stages - 2; ++p) fill(p);

  int prev_slot = -1;
  long long prev_tile = 0;
  float prev_offset = 0.0f;
  auto finish = [&]() {  // pass 2 and the store of the previous tile
    ta::named_barrier_sync(C::prefix_bar(prev_slot), all);
    float run = slot_prefix[prev_slot] + prev_offset;
#pragma unroll
    for (int k = 0; k < C::chunks; ++k) {
      uint4* p = chunk(prev_slot, t * C::chunks + k);
      float4 v = *reinterpret_cast<float4*>(p);
      run += v.x;
      v.x = run;
      run += v.y;
      v.y = run;
      run += v.z;
      v.z = run;
      run += v.w;
      v.w = run;
      *reinterpret_cast<float4*>(p) = v;
    }
    ta::named_barrier_sync(C::compute_bar, C::threads);
    uint4* g = gout + prev_tile * tile_chunks;
#pragma unroll
    for (int k = 0; k < C::chunks; ++k) g[k * C::threads + t] = *chunk(prev_slot, k * C::threads + t);
  };

#pragma unroll 1
  for (int j = 0;; ++j) {
    const int s = j % C::stages;
    fill((j + C::stages - 2) % C::stages);  // the slot the tile before the previous one left
    tilecraft::copy_async_wait<C::stages - 2>();
    ta::named_barrier_sync(C::compute_bar, C::threads);
    const long long tile = slot_tile[s];
    if (tile < 0) {
      bar_arrive(C::aggregate_bar(s), all);  // tells the look-back warp to stop
      if (prev_slot >= 0) finish();
      return;
    }
    // Pass 1: the run's total (four independent chains), then an exclusive scan of the totals.
    float4 acc = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
#pragma unroll
    for (int k = 0; k < C::chunks; ++k) {
      const float4 v = *reinterpret_cast<const float4*>(chunk(s, t * C::chunks + k));
      acc.x += v.x;
      acc.y += v.y;
      acc.z += v.z;
      acc.w += v.w;
    }
    const float total = (acc.x + acc.y) + (acc.z + acc.w);
    float inclusive = total;
#pragma unroll
    for (int d = 1; d < 32; d *= 2) {
      const float up = __shfl_up_sync(0xffffffffu, inclusive, d);
      if (lane >= d) inclusive += up;
    }
    float exclusive = __shfl_up_sync(0xffffffffu, inclusive, 1);
    if (lane == 0) exclusive = 0.0f;
    if (lane == 31) warp_total[warp] = inclusive;
    ta::named_barrier_sync(C::compute_bar, C::threads);
    float before = 0.0f, aggregate = 0.0f;
#pragma unroll
    for (int w = 0; w < C::threads / 32; ++w) {
      if (w < warp) before += warp_total[w];
      aggregate += warp_total[w];
    }
    // The aggregate goes out at once, not when the look-back warp is done with the block's tile
    // before this one: the look-backs of other blocks' later tiles need it. (The inclusive
    // prefix, stored later by the look-back warp, is ordered after it by the barrier.)
    if (t == 0) {
      slot_aggregate[s] = aggregate;
      status.publish(tile, tile == 0 ? td::tile_inclusive : td::tile_aggregate, aggregate);
      __threadfence_block();
    }
    bar_arrive(C::aggregate_bar(s), all);
    if (prev_slot >= 0) finish();
    prev_slot = s;
    prev_tile = tile;
    prev_offset = before + exclusive;
  }
}

struct Variant {
  std::string name;
  std::function<void(const float*, float*, long long, cudaStream_t)> run;
};

int main(int argc, char** argv) {
  std::vector<long long> sizes = {1LL << 20, 1LL << 24, 1LL << 26, 1LL << 28};
  if (argc > 1) {
    sizes.clear();
    for (int i = 1; i < argc; ++i) sizes.push_back(std::atoll(argv[i]));
  }
  const int rounds = 15;
  int sms = 0, l2 = 0;
  CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  CK(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, 0));
  const long long max_n = *std::max_element(sizes.begin(), sizes.end());
  float *in = nullptr, *out = nullptr, *bits = nullptr;
  CK(cudaMalloc(&in, max_n * 4));
  CK(cudaMalloc(&bits, max_n * 4));
  CK(cudaMalloc(&out, max_n * 4));
  void* flush = nullptr;
  const std::size_t flush_bytes = 2 * static_cast<std::size_t>(l2);
  CK(cudaMalloc(&flush, flush_bytes));
  {
    std::vector<float> h(max_n);
    srand(11);
    for (auto& v : h) v = static_cast<float>(rand() % 1000) / 1000.0f;
    CK(cudaMemcpy(in, h.data(), max_n * 4, cudaMemcpyHostToDevice));
    for (auto& v : h) v = static_cast<float>(rand() & 1);  // 0 / 1: every prefix up to 2^24 exact
    CK(cudaMemcpy(bits, h.data(), max_n * 4, cudaMemcpyHostToDevice));
  }
  void* temp = nullptr;
  const std::size_t temp_bytes = 64 << 20;
  CK(cudaMalloc(&temp, temp_bytes));
  cudaStream_t st;
  CK(cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking));

  auto pipelined = [&](auto cfg) {
    using C = decltype(cfg);
    auto kernel = scan_pipelined<C>;
    CK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(C::smem)));
    int per_sm = 0;
    CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, C::block, C::smem));
    char name[64];
    std::snprintf(name, sizeof name, "%s%dx%dx%d(%d/SM)", C::anchored ? "anch" : "pipe", C::threads, C::items,
                  C::stages, per_sm);
    return Variant{name, [=](const float* i, float* o, long long n, cudaStream_t s) {
                     if (n % C::tile != 0) {
                       std::printf("n must be a multiple of %d\n", C::tile);
                       std::exit(1);
                     }
                     const long long tiles = n / C::tile;
                     unsigned* counter = static_cast<unsigned*>(temp);
                     void* states = static_cast<unsigned char*>(temp) + 256;
                     CK(cudaMemsetAsync(temp, 0, 256 + tiles * 8, s));
                     const long long grid = std::min<long long>(tiles, static_cast<long long>(per_sm) * sms);
                     kernel<<<static_cast<unsigned>(grid), C::block, C::smem, s>>>(
                         i, o, tiles, td::TileStatus<float>(states, tiles), counter);
                     CK(cudaGetLastError());
                   }};
  };
  std::vector<Variant> vs = {
      {"cub",
       [&](const float* i, float* o, long long n, cudaStream_t s) {
         std::size_t bytes = temp_bytes;
         CK(cub::DeviceScan::InclusiveSum(temp, bytes, i, o, n, s));
       }},
      {"library",
       [&](const float* i, float* o, long long n, cudaStream_t s) {
         std::size_t bytes = temp_bytes;
         CK(tilecraft::inclusive_scan(temp, bytes, i, o, n, tilecraft::Sum{}, s));
       }},
      {"memcpy", [&](const float* i, float* o, long long n,
                     cudaStream_t s) { CK(cudaMemcpyAsync(o, i, n * 4, cudaMemcpyDeviceToDevice, s)); }},
      pipelined(Cfg<128, 64, 3>{}),
      pipelined(Cfg<128, 64, 3, true>{}),
      pipelined(Cfg<128, 64, 4, true>{}),
      pipelined(Cfg<128, 32, 4, true>{}),
      pipelined(Cfg<256, 32, 3, true>{}),
      pipelined(Cfg<256, 32, 4, true>{}),
      pipelined(Cfg<256, 16, 4, true>{}),
      pipelined(Cfg<256, 16, 6, true>{}),
  };

  cudaEvent_t a, b;
  CK(cudaEventCreate(&a));
  CK(cudaEventCreate(&b));
  for (long long n : sizes) {
    // Reference: CUB's result. On 0 / 1 inputs up to 2^24 every prefix is an exact integer, so
    // each variant must equal CUB's bit for bit (a lost or doubled tile shows); on the random
    // inputs each must be within 1e-4 of the largest prefix and bitwise the same on two runs.
    std::vector<float> ref(n), got(n), again(n);
    if (n <= (1LL << 24)) {
      vs[0].run(bits, out, n, st);
      CK(cudaStreamSynchronize(st));
      CK(cudaMemcpy(ref.data(), out, n * 4, cudaMemcpyDeviceToHost));
      for (std::size_t v = 1; v < vs.size(); ++v) {
        if (vs[v].name == "memcpy") continue;
        CK(cudaMemset(out, 0xff, n * 4));
        vs[v].run(bits, out, n, st);
        CK(cudaStreamSynchronize(st));
        CK(cudaMemcpy(got.data(), out, n * 4, cudaMemcpyDeviceToHost));
        if (std::memcmp(got.data(), ref.data(), n * 4) != 0) {
          long long i = 0;
          while (got[i] == ref[i]) ++i;
          std::printf("WRONG %s n=%lld on 0/1 inputs: first difference at %lld: %.1f, CUB %.1f\n", vs[v].name.c_str(),
                      n, i, got[i], ref[i]);
          return 1;
        }
      }
    }
    vs[0].run(in, out, n, st);
    CK(cudaStreamSynchronize(st));
    CK(cudaMemcpy(ref.data(), out, n * 4, cudaMemcpyDeviceToHost));
    const double scale = std::fabs(static_cast<double>(ref[n - 1])) + 1.0;
    std::vector<std::vector<float>> times(vs.size());
    for (std::size_t v = 1; v < vs.size(); ++v) {
      if (vs[v].name == "memcpy") continue;
      CK(cudaMemset(out, 0xff, n * 4));
      vs[v].run(in, out, n, st);
      CK(cudaStreamSynchronize(st));
      CK(cudaMemcpy(got.data(), out, n * 4, cudaMemcpyDeviceToHost));
      CK(cudaMemset(out, 0xff, n * 4));
      vs[v].run(in, out, n, st);
      CK(cudaStreamSynchronize(st));
      CK(cudaMemcpy(again.data(), out, n * 4, cudaMemcpyDeviceToHost));
      double worst = 0;
      for (long long i = 0; i < n; ++i) worst = std::max(worst, std::fabs(static_cast<double>(got[i]) - ref[i]));
      const bool same = std::memcmp(got.data(), again.data(), n * 4) == 0;
      if (!(worst <= 1e-4 * scale) || !same) {
        std::printf("WRONG %s n=%lld: largest difference %.3g (scale %.3g), %s\n", vs[v].name.c_str(), n, worst, scale,
                    same ? "deterministic" : "NOT deterministic");
        return 1;
      }
    }
    for (int r = -2; r < rounds; ++r) {
      for (std::size_t v = 0; v < vs.size(); ++v) {
        CK(cudaMemsetAsync(flush, r & 0xff, flush_bytes, st));
        CK(cudaEventRecord(a, st));
        vs[v].run(in, out, n, st);
        CK(cudaEventRecord(b, st));
        CK(cudaEventSynchronize(b));
        float ms = 0;
        CK(cudaEventElapsedTime(&ms, a, b));
        if (r >= 0) times[v].push_back(ms * 1000.0f);
      }
    }
    std::printf("n=%lld\n", n);
    std::vector<double> med(vs.size());
    double memcpy_us = 0;
    for (std::size_t v = 0; v < vs.size(); ++v) {
      std::sort(times[v].begin(), times[v].end());
      med[v] = times[v][times[v].size() / 2];
      if (vs[v].name == "memcpy") memcpy_us = med[v];
    }
    for (std::size_t v = 0; v < vs.size(); ++v) {
      std::printf("  %-24s %9.2f us  %.3fx CUB  %.3fx memcpy\n", vs[v].name.c_str(), med[v], med[0] / med[v],
                  memcpy_us / med[v]);
    }
  }
  return 0;
}
