// select_if's tile, measured in pieces (2^28 floats, half kept; L2 flushed, medians of 11 runs):
// the library's kernel against copies of it that (a) skip the look-back and write each tile at a
// fixed offset (a diagnostic: the tile's load, rank and store without the chain), (b) store the
// kept items as aligned 16-byte vectors, (c) take tiles of 256 x 64 items from dynamic shared
// memory (64 KiB, past the 40 KiB of static shared memory the library's tile may use), and the
// library with streaming loads; beside cub::DeviceSelect::If and a device-to-device memcpy.
// Every variant but the diagnostic is checked against the library's output (run.sh). Also a
// persistent, pipelined kernel (sel_pipe) that loads its next tile while it looks back.
#include <cub/device/device_select.cuh>
#include <tilecraft/device/select.cuh>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <vector>

#include "../experiment_util.cuh"

namespace td = tilecraft::detail;
void* g_cub_temp = nullptr;
using tilecraft::CacheHint;

struct Below {
  __host__ __device__ bool operator()(float v) const { return v < 2.5f; }
};

__global__ void fill(float* p, long long n) {
  for (long long i = blockIdx.x * 256ll + threadIdx.x; i < n; i += 256ll * gridDim.x) {
    const unsigned h = index_hash(i);
    p[i] = 1.0f + 3.0f * (h >> 8) / 16777216.0f;
  }
}

// Waits in place, as the library's look_back, for an inclusive prefix among the 32 * K nearest
// predecessors (lane l watches tiles tile - 1 - l - 32 k) with every nearer tile's aggregate, then
// sums the window by a butterfly (the counts are unsigned sums: any association gives the same
// bits) instead of the library's sequential fold.
template <int K>
__device__ unsigned look_back_wide(const td::TileStatus<unsigned>& status, long long tile) {
  const int lane = static_cast<int>(threadIdx.x % 32);
  td::TileEntry<unsigned> e[K];
  int nearest = -1;
  for (;;) {
    unsigned inc[K], miss[K];
#pragma unroll
    for (int k = 0; k < K; ++k) {
      const long long pred = tile - 1 - lane - 32 * k;
      e[k] = pred >= 0 ? status.load(pred) : td::TileEntry<unsigned>{td::tile_aggregate, 0u};
    }
#pragma unroll
    for (int k = 0; k < K; ++k) {
      const long long pred = tile - 1 - lane - 32 * k;
      inc[k] = __ballot_sync(0xffffffffu, pred >= 0 && e[k].flag == td::tile_inclusive);
      miss[k] = __ballot_sync(0xffffffffu, e[k].flag == td::tile_invalid);
    }
    nearest = -1;
    bool gap = false;
#pragma unroll
    for (int k = 0; k < K; ++k) {
      if (nearest < 0 && !gap) {
        if (inc[k] != 0) {
          const int l = __ffs(static_cast<int>(inc[k])) - 1;
          if ((miss[k] & ((1u << l) - 1u)) == 0)
            nearest = 32 * k + l;
          else
            gap = true;
        } else if (miss[k] != 0) {
          gap = true;
        }
      }
    }
    if (nearest >= 0) break;
    __nanosleep(20);
  }
  unsigned v = 0;
#pragma unroll
  for (int k = 0; k < K; ++k) v += 32 * k + lane <= nearest ? e[k].value : 0u;
#pragma unroll
  for (int d = 16; d >= 1; d /= 2) v += __shfl_xor_sync(0xffffffffu, v, d);
  return v;
}

// The library's select kernel for floats, select_if only, with the switches above; LookBack 0:
// the library's look_back, K > 0: look_back_wide<K>.
// Prefetch (0: none): at the block's start, its threads prefetch into L2 the tile `ahead` tickets
// past their own (1: one prefetch.global.L2 of a 128-byte line a thread per line, 2: one
// cp.async.bulk.prefetch.L2 of the whole tile by thread 0), the tile the block that replaces this
// one is likely to take: DRAM keeps reading while blocks wait for their prefixes.
template <int Threads, int Items, bool VecStore, bool NoLookBack, bool Dynamic, int LookBack = 0, int Prefetch = 0>
__global__ void __launch_bounds__(Threads)
    sel_kernel(const float* in, float* out, long long n, Below pred, long long* num_selected,
               td::TileStatus<unsigned> status, unsigned* counter, long long ahead = 0) {
  constexpr int threads = Threads;
  constexpr int warps = threads / 32;
  constexpr int items = Items;
  constexpr int elems = Threads * Items;
  using Arr = td::SelectArrangement<float, items>;
  constexpr int vec = Arr::vec;
  constexpr int rows = Arr::rows;
  constexpr unsigned field_mask = (1u << Arr::field_bits) - 1u;
  constexpr int static_elems = Dynamic ? 4 : elems + 8;
  __shared__ alignas(16) float static_stage[static_elems];
  extern __shared__ uint4 dynamic_stage[];
  float* stage = Dynamic ? reinterpret_cast<float*>(dynamic_stage) : static_stage;
  __shared__ int warp_kept[warps];
  __shared__ unsigned ticket;
  __shared__ unsigned tile_prefix;
  __shared__ unsigned look_back_buf[32];
  if (threadIdx.x == 0) ticket = atomicAdd(counter, 1u);
  __syncthreads();
  const long long tile = ticket;
  const long long base = tile * elems;
  const long long left = n - base;
  const int valid = left < elems ? static_cast<int>(left) : elems;
  const int warp = static_cast<int>(threadIdx.x) / 32;
  const int lane = static_cast<int>(threadIdx.x) % 32;
  const int first = warp * 32 * items + lane * vec;
  if constexpr (Prefetch != 0) {
    const long long later = (tile + ahead) * elems;
    if (later + elems <= n) {
      if constexpr (Prefetch == 1) {
        for (int line = static_cast<int>(threadIdx.x); line < elems / 32; line += threads) {
          asm volatile("prefetch.global.L2 [%0];" ::"l"(in + later + 32 * line));
        }
      } else if (threadIdx.x == 0) {
        asm volatile("cp.async.bulk.prefetch.L2.global [%0], %1;" ::"l"(in + later), "r"(elems * 4) : "memory");
      }
    }
  }

  float x[items];
  unsigned kept[rows];
  const float* src = in + base;
  if (valid == elems) {
#pragma unroll
    for (int j = 0; j < rows; ++j) {
      const uint4 w =
          td::load_global_word<CacheHint::normal>(reinterpret_cast<const uint4*>(src + first + j * 32 * vec));
      std::memcpy(&x[j * vec], &w, 16);
    }
#pragma unroll
    for (int j = 0; j < rows; ++j) {
      kept[j] = 0u;
#pragma unroll
      for (int c = 0; c < vec; ++c) kept[j] |= pred(x[j * vec + c]) ? 1u << c : 0u;
    }
  } else {
#pragma unroll
    for (int j = 0; j < rows; ++j) {
      kept[j] = 0u;
#pragma unroll
      for (int c = 0; c < vec; ++c) {
        const int e = first + j * 32 * vec + c;
        x[j * vec + c] = e < valid ? src[e] : 0.0f;
        kept[j] |= (e < valid && pred(x[j * vec + c])) ? 1u << c : 0u;
      }
    }
  }
  unsigned packed[Arr::words] = {};
#pragma unroll
  for (int j = 0; j < rows; ++j) {
    packed[j / Arr::fields] += static_cast<unsigned>(__popc(kept[j])) << (Arr::field_bits * (j % Arr::fields));
  }
  unsigned inclusive[Arr::words], total[Arr::words];
#pragma unroll
  for (int q = 0; q < Arr::words; ++q)
    inclusive[q] = tilecraft::warp_inclusive_scan(packed[q], tilecraft::Sum{}, total[q]);
  int before[rows];
  int warp_count = 0;
#pragma unroll
  for (int j = 0; j < rows; ++j) {
    const int shift = Arr::field_bits * (j % Arr::fields);
    const int lanes_up_to_here = static_cast<int>((inclusive[j / Arr::fields] >> shift) & field_mask);
    before[j] = warp_count + lanes_up_to_here - __popc(kept[j]);
    warp_count += static_cast<int>((total[j / Arr::fields] >> shift) & field_mask);
  }
  if (lane == 0) warp_kept[warp] = warp_count;
  __syncthreads();
  int warp_offset = 0;
  int kept_here = 0;
#pragma unroll
  for (int w = 0; w < warps; ++w) {
    const int v = warp_kept[w];
    warp_offset += w < warp ? v : 0;
    kept_here += v;
  }
  if (warp == 0) {
    const unsigned aggregate = static_cast<unsigned>(kept_here);
    if constexpr (NoLookBack) {
      if (lane == 0) tile_prefix = static_cast<unsigned>(base / 2);
    } else if (LookBack > 0 && tile > 0) {
      if (lane == 0) status.publish(tile, td::tile_aggregate, aggregate);
      const unsigned prefix = look_back_wide<(LookBack > 0 ? LookBack : 1)>(status, tile);
      if (lane == 0) {
        status.publish(tile, td::tile_inclusive, prefix + aggregate);
        tile_prefix = prefix;
      }
    } else if (tile == 0) {
      td::FirstTileCallback<unsigned, td::TileStatus<unsigned>, tilecraft::Sum> first_tile{status, tilecraft::Sum{}, 0u,
                                                                                           &tile_prefix, nullptr};
      (void)first_tile(aggregate);
    } else {
      td::LookBackCallback<unsigned, td::TileStatus<unsigned>, tilecraft::Sum> look_back{
          status, tile, tilecraft::Sum{}, look_back_buf, &tile_prefix, nullptr};
      (void)look_back(aggregate);
    }
  }
#pragma unroll
  for (int j = 0; j < rows; ++j) {
#pragma unroll
    for (int c = 0; c < vec; ++c) {
      const int k = warp_offset + before[j] + __popc(kept[j] & ((1u << c) - 1u));
      if ((kept[j] >> c) & 1u) stage[k] = x[j * vec + c];
    }
  }
  __syncthreads();
  const long long prefix = tile_prefix;
  const int count = NoLookBack ? (kept_here < elems / 2 ? kept_here : elems / 2) : kept_here;
  if constexpr (VecStore) {
    // Scalar head up to out's next 16-byte boundary, then aligned vectors read from shared memory
    // as two aligned vectors shifted by the head (the same shift for the whole block), then a tail.
    const int head = static_cast<int>((4 - (prefix & 3)) & 3);
    const int h = head < count ? head : count;
    if (static_cast<int>(threadIdx.x) < h) out[prefix + threadIdx.x] = stage[threadIdx.x];
    const int body = (count - h) / 4;
    const uint4* sv = reinterpret_cast<const uint4*>(stage);
    uint4* ov = reinterpret_cast<uint4*>(out + prefix + h);
    const int s = h & 3;  // stage index h + 4q starts s words into vector (h >> 2) + q
    for (int q = static_cast<int>(threadIdx.x); q < body; q += threads) {
      const uint4 a = sv[(h >> 2) + q];
      uint4 r;
      if (s == 0) {
        r = a;
      } else {
        const uint4 b = sv[(h >> 2) + q + 1];
        if (s == 1)
          r = make_uint4(a.y, a.z, a.w, b.x);
        else if (s == 2)
          r = make_uint4(a.z, a.w, b.x, b.y);
        else
          r = make_uint4(a.w, b.x, b.y, b.z);
      }
      ov[q] = r;
    }
    const int done = h + 4 * body;
    if (static_cast<int>(threadIdx.x) < count - done) out[prefix + done + threadIdx.x] = stage[done + threadIdx.x];
  } else {
    for (int k = static_cast<int>(threadIdx.x); k < count; k += threads) out[prefix + k] = stage[k];
  }
  if (!NoLookBack && base + valid == n && threadIdx.x == 0) *num_selected = static_cast<long long>(prefix + kept_here);
}

// A persistent block that loads its next tile (into a second register array) while its first warp
// looks back for the current one: a waiting block keeps a tile's loads in flight. Tickets from the
// counter, in order per block; look_back_wide<K> (a butterfly over 32 K predecessors).
template <int Threads, int Items, int K>
__global__ void __launch_bounds__(Threads)
    sel_pipe(const float* in, float* out, long long n, Below pred, long long* num_selected,
             td::TileStatus<unsigned> status, unsigned* counter, long long tiles) {
  constexpr int threads = Threads;
  constexpr int warps = threads / 32;
  constexpr int items = Items;
  constexpr int elems = Threads * Items;
  using Arr = td::SelectArrangement<float, items>;
  constexpr int vec = Arr::vec;
  constexpr int rows = Arr::rows;
  constexpr unsigned field_mask = (1u << Arr::field_bits) - 1u;
  __shared__ alignas(16) float stage[elems + 8];
  __shared__ int warp_kept[warps];
  __shared__ unsigned next_ticket;
  __shared__ unsigned tile_prefix;
  const int warp = static_cast<int>(threadIdx.x) / 32;
  const int lane = static_cast<int>(threadIdx.x) % 32;
  const int first = warp * 32 * items + lane * vec;

  auto load = [&](float(&x)[Items], long long tile) {
    const long long base = tile * elems;
    const long long left = n - base;
    const int valid = left < elems ? static_cast<int>(left) : elems;
    const float* src = in + base;
    if (valid == elems) {
#pragma unroll
      for (int j = 0; j < rows; ++j) {
        const uint4 w =
            td::load_global_word<CacheHint::normal>(reinterpret_cast<const uint4*>(src + first + j * 32 * vec));
        std::memcpy(&x[j * vec], &w, 16);
      }
    } else {
#pragma unroll
      for (int j = 0; j < rows; ++j) {
#pragma unroll
        for (int c = 0; c < vec; ++c) {
          const int e = first + j * 32 * vec + c;
          x[j * vec + c] = e < valid ? src[e] : 0.0f;
        }
      }
    }
  };

  auto process = [&](float(&cur)[Items], long long tile, float(&nxt)[Items]) -> long long {
    const long long base = tile * elems;
    const long long left = n - base;
    const int valid = left < elems ? static_cast<int>(left) : elems;
    unsigned kept[rows];
#pragma unroll
    for (int j = 0; j < rows; ++j) {
      kept[j] = 0u;
#pragma unroll
      for (int c = 0; c < vec; ++c) {
        const int e = first + j * 32 * vec + c;
        kept[j] |= (e < valid && pred(cur[j * vec + c])) ? 1u << c : 0u;
      }
    }
    unsigned packed[Arr::words] = {};
#pragma unroll
    for (int j = 0; j < rows; ++j) {
      packed[j / Arr::fields] += static_cast<unsigned>(__popc(kept[j])) << (Arr::field_bits * (j % Arr::fields));
    }
    unsigned inclusive[Arr::words], total[Arr::words];
#pragma unroll
    for (int q = 0; q < Arr::words; ++q) {
      inclusive[q] = tilecraft::warp_inclusive_scan(packed[q], tilecraft::Sum{}, total[q]);
    }
    int before[rows];
    int warp_count = 0;
#pragma unroll
    for (int j = 0; j < rows; ++j) {
      const int shift = Arr::field_bits * (j % Arr::fields);
      const int lanes_up_to_here = static_cast<int>((inclusive[j / Arr::fields] >> shift) & field_mask);
      before[j] = warp_count + lanes_up_to_here - __popc(kept[j]);
      warp_count += static_cast<int>((total[j / Arr::fields] >> shift) & field_mask);
    }
    if (lane == 0) warp_kept[warp] = warp_count;
    if (threadIdx.x == 0) next_ticket = atomicAdd(counter, 1u);
    __syncthreads();
    int warp_offset = 0;
    int kept_here = 0;
#pragma unroll
    for (int w = 0; w < warps; ++w) {
      const int v = warp_kept[w];
      warp_offset += w < warp ? v : 0;
      kept_here += v;
    }
    const long long next = next_ticket;
    if (next < tiles) load(nxt, next);  // in flight while the look-back waits
    if (warp == 0) {
      const unsigned aggregate = static_cast<unsigned>(kept_here);
      if (tile == 0) {
        if (lane == 0) {
          status.publish(0, td::tile_inclusive, aggregate);
          tile_prefix = 0u;
        }
      } else {
        if (lane == 0) status.publish(tile, td::tile_aggregate, aggregate);
        const unsigned prefix = look_back_wide<K>(status, tile);
        if (lane == 0) {
          status.publish(tile, td::tile_inclusive, prefix + aggregate);
          tile_prefix = prefix;
        }
      }
    }
#pragma unroll
    for (int j = 0; j < rows; ++j) {
#pragma unroll
      for (int c = 0; c < vec; ++c) {
        const int k = warp_offset + before[j] + __popc(kept[j] & ((1u << c) - 1u));
        if ((kept[j] >> c) & 1u) stage[k] = cur[j * vec + c];
      }
    }
    __syncthreads();
    const long long prefix = tile_prefix;
    tilecraft::detail::store_run<threads>(out + prefix, stage, kept_here);
    if (base + valid == n && threadIdx.x == 0) *num_selected = static_cast<long long>(prefix + kept_here);
    __syncthreads();  // stage, warp_kept, next_ticket and tile_prefix are rewritten next
    return next;
  };

  if (threadIdx.x == 0) next_ticket = atomicAdd(counter, 1u);
  __syncthreads();
  long long t = next_ticket;
  __syncthreads();
  if (t >= tiles) return;
  float a[Items], b[Items];
  load(a, t);
  for (;;) {
    const long long u = process(a, t, b);
    if (u >= tiles) break;
    t = process(b, u, a);
    if (t >= tiles) break;
  }
}

template <int Threads, int Items, int K>
void launch_pipe(const float* in, float* out, long long n, long long* count, void* temp, cudaStream_t s) {
  constexpr int elems = Threads * Items;
  const long long tiles = (n + elems - 1) / elems;
  auto* counter = static_cast<unsigned*>(temp);
  const td::TileStatus<unsigned> status(static_cast<unsigned char*>(temp) + td::scan_header_bytes, tiles);
  td::scan_init_kernel<td::TileStatus<unsigned>>
      <<<static_cast<unsigned>((tiles + 255) / 256), 256, 0, s>>>(status, tiles, counter);
  auto k = sel_pipe<Threads, Items, K>;
  static int grid = 0;
  if (grid == 0) {
    int per_sm = 0, sms = 0;
    CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, k, Threads, 0));
    CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
    grid = per_sm * sms;
    std::printf("  (sel_pipe<%d, %d, %d>: %d blocks an SM)\n", Threads, Items, K, per_sm);
  }
  const long long blocks = tiles < grid ? tiles : grid;
  k<<<static_cast<unsigned>(blocks), Threads, 0, s>>>(in, out, n, Below{}, count, status, counter, tiles);
}

struct Variant {
  const char* name;
  void (*launch)(const float*, float*, long long, long long*, void*, cudaStream_t);
  bool checked;
};

template <int Threads, int Items, bool VecStore, bool NoLookBack, bool Dynamic, int LookBack = 0, int Prefetch = 0,
          int AheadPercent = 100>
void launch_copy(const float* in, float* out, long long n, long long* count, void* temp, cudaStream_t s) {
  constexpr int elems = Threads * Items;
  const long long tiles = (n + elems - 1) / elems;
  auto* counter = static_cast<unsigned*>(temp);
  const td::TileStatus<unsigned> status(static_cast<unsigned char*>(temp) + td::scan_header_bytes, tiles);
  td::scan_init_kernel<td::TileStatus<unsigned>>
      <<<static_cast<unsigned>((tiles + 255) / 256), 256, 0, s>>>(status, tiles, counter);
  auto k = sel_kernel<Threads, Items, VecStore, NoLookBack, Dynamic, LookBack, Prefetch>;
  const int smem = Dynamic ? elems * 4 + 32 : 0;
  if (Dynamic) CK(cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
  static long long ahead = -1;
  if (ahead < 0) {
    int per_sm = 0, sms = 0;
    CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, k, Threads, smem));
    CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
    ahead = static_cast<long long>(per_sm) * sms * AheadPercent / 100;
    if (Prefetch != 0) std::printf("  (prefetch %d: %d blocks an SM, %lld tiles ahead)\n", Prefetch, per_sm, ahead);
  }
  k<<<static_cast<unsigned>(tiles), Threads, smem, s>>>(in, out, n, Below{}, count, status, counter, ahead);
}

template <class Policy>
void launch_lib(const float* in, float* out, long long n, long long* count, void* temp, cudaStream_t s) {
  std::size_t bytes = std::size_t{64} << 20;
  CK(tilecraft::select_if<Policy>(temp, bytes, in, out, count, n, Below{}, s));
}

int main() {
  const long long n = 1ll << 28;
  const size_t bytes = n * sizeof(float);
  float *in, *out, *ref, *flush;
  long long* count;
  void* temp;
  CK(cudaMalloc(&in, bytes));
  CK(cudaMalloc(&out, bytes));
  CK(cudaMalloc(&ref, bytes));
  CK(cudaMalloc(&flush, 256 << 20));
  CK(cudaMalloc(&count, 16));
  CK(cudaMalloc(&temp, std::size_t{64} << 20));
  fill<<<1024, 256>>>(in, n);
  CK(cudaDeviceSynchronize());
  cudaStream_t s;
  CK(cudaStreamCreate(&s));
  // The reference: the library's default select.
  launch_lib<void>(in, ref, n, count, temp, s);
  CK(cudaStreamSynchronize(s));
  long long ref_count = 0;
  CK(cudaMemcpy(&ref_count, count, 8, cudaMemcpyDeviceToHost));
  std::printf("kept %lld of %lld\n", ref_count, n);

  std::size_t cub_bytes = 0;
  CK(cub::DeviceSelect::If(nullptr, cub_bytes, in, out, count, n, Below{}, s));
  void* cub_temp;
  CK(cudaMalloc(&cub_temp, cub_bytes));

  const Variant variants[] = {
      {"library (128 x 64)", launch_lib<void>, true},
      {"copy 128 x 64, vector stores", launch_copy<128, 64, true, false, false>, true},
      {"vec + prefetch bulk, 1/8 wave ahead", launch_copy<128, 64, true, false, false, 0, 2, 12>, true},
      {"vec + prefetch bulk, 1/4 wave ahead", launch_copy<128, 64, true, false, false, 0, 2, 25>, true},
      {"vec + prefetch bulk, 3/8 wave ahead", launch_copy<128, 64, true, false, false, 0, 2, 37>, true},
      {"vec + prefetch bulk, 1/2 wave ahead", launch_copy<128, 64, true, false, false, 0, 2, 50>, true},
      {"vec + prefetch bulk, 5/8 wave ahead", launch_copy<128, 64, true, false, false, 0, 2, 62>, true},
      {"vec + prefetch bulk, 3/4 wave ahead", launch_copy<128, 64, true, false, false, 0, 2, 75>, true},
      {"vec + prefetch lines, 1/2 wave ahead", launch_copy<128, 64, true, false, false, 0, 1, 50>, true},
      {"cub::DeviceSelect::If",
       [](const float* i, float* o, long long m, long long* c, void*, cudaStream_t st) {
         std::size_t b = 0;
         CK(cub::DeviceSelect::If(nullptr, b, i, o, c, m, Below{}, st));
         CK(cub::DeviceSelect::If(g_cub_temp, b, i, o, c, m, Below{}, st));
       },
       true},
      {"memcpy 1 GiB",
       [](const float* i, float* o, long long m, long long*, void*, cudaStream_t st) {
         CK(cudaMemcpyAsync(o, i, static_cast<std::size_t>(m) * 4, cudaMemcpyDeviceToDevice, st));
       },
       false},
  };
  g_cub_temp = cub_temp;
  cudaEvent_t a, b;
  CK(cudaEventCreate(&a));
  CK(cudaEventCreate(&b));
  std::vector<float> host_ref(static_cast<std::size_t>(ref_count)), host_out(static_cast<std::size_t>(ref_count));
  CK(cudaMemcpy(host_ref.data(), ref, ref_count * 4, cudaMemcpyDeviceToHost));
  for (const Variant& v : variants) {
    std::vector<float> t;
    for (int r = 0; r < 14; ++r) {
      CK(cudaMemsetAsync(out, 0xff, bytes, s));
      CK(cudaMemsetAsync(count, 0xff, 16, s));
      CK(cudaMemsetAsync(flush, r, 256 << 20, s));
      CK(cudaEventRecord(a, s));
      v.launch(in, out, n, count, temp, s);
      CK(cudaEventRecord(b, s));
      CK(cudaEventSynchronize(b));
      CK(cudaGetLastError());
      float ms;
      CK(cudaEventElapsedTime(&ms, a, b));
      if (r >= 3) t.push_back(ms * 1000.0f);
    }
    std::sort(t.begin(), t.end());
    const char* verdict = "";
    if (v.checked) {
      long long c = -1;
      CK(cudaMemcpy(&c, count, 8, cudaMemcpyDeviceToHost));
      CK(cudaMemcpy(host_out.data(), out, ref_count * 4, cudaMemcpyDeviceToHost));
      verdict = c == ref_count && std::memcmp(host_out.data(), host_ref.data(), ref_count * 4) == 0 ? "ok" : "WRONG";
    }
    std::printf("%-45s %8.1f us (min %8.1f) %s\n", v.name, t[t.size() / 2], t.front(), verdict);
  }
  return 0;
}
