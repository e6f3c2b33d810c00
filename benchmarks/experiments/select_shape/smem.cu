// select_if with its tile in shared memory instead of registers (the scan's two-pass idea):
// each lane copies its rows into shared memory with cp.async (no registers held for the items),
// reads them back to flag and rank them, the first warp looks back, and each warp compacts its
// kept items to the start of its own region (in place, row by row: a row's kept items land at or
// before its own elements, never on a later row) and stores them from there once the prefix is
// known. Registers hold the flags and ranks only, so shared memory, not registers, caps the
// resident tiles. 2^28 floats, half kept, L2 flushed, medians of 11 runs; beside the library
// and cub::DeviceSelect::If, every output compared with the library's (run_smem.sh).
#include <cub/device/device_select.cuh>
#include <tilecraft/arch/cp_async.cuh>
#include <tilecraft/device/select.cuh>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <vector>

#include "../experiment_util.cuh"

namespace td = tilecraft::detail;
namespace ta = tilecraft::arch;

struct Below {
  __host__ __device__ bool operator()(float v) const { return v < 2.5f; }
};

__global__ void fill(float* p, long long n) {
  for (long long i = blockIdx.x * 256ll + threadIdx.x; i < n; i += 256ll * gridDim.x) {
    const unsigned h = index_hash(i);
    p[i] = 1.0f + 3.0f * (h >> 8) / 16777216.0f;
  }
}

// A 16-byte shared load the compiler cannot merge with another of the same address (so that
// the items are read again in the compaction instead of held in registers since the flagging).
__device__ __forceinline__ float4 reload(const float* p) {
  float4 v;
  asm volatile("ld.shared.v4.f32 {%0, %1, %2, %3}, [%4];"
               : "=f"(v.x), "=f"(v.y), "=f"(v.z), "=f"(v.w)
               : "r"(static_cast<unsigned>(__cvta_generic_to_shared(p))));
  return v;
}

// Store: 0 scalar stores from each warp's compacted run, 1 store_run's vectors per warp.
template <int Threads, int Items, int Store, int MinBlocks>
__global__ void __launch_bounds__(Threads, MinBlocks)
    sel_smem(const float* in, float* out, long long n, Below pred, long long* num_selected,
             td::TileStatus<unsigned> status, unsigned* counter, long long ahead) {
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
  const int region = warp * 32 * items;
  const int first = region + lane * vec;
  if (ahead > 0 && (tile + ahead) * elems + elems <= n) {
    ta::prefetch_l2_block<threads, static_cast<std::size_t>(elems) * sizeof(float)>(in + (tile + ahead) * elems,
                                                                                    static_cast<int>(threadIdx.x));
  }
  const float* src = in + base;
  if (valid == elems) {
#pragma unroll
    for (int j = 0; j < rows; ++j) ta::cp_async_cg<16>(stage + first + j * 32 * vec, src + first + j * 32 * vec);
    ta::cp_async_wait_all();  // (each lane reads back only what it copied)
  } else {
#pragma unroll
    for (int j = 0; j < rows; ++j) {
#pragma unroll
      for (int c = 0; c < vec; ++c) {
        const int e = first + j * 32 * vec + c;
        stage[e] = e < valid ? src[e] : 0.0f;
      }
    }
  }
  unsigned kept[rows];
#pragma unroll
  for (int j = 0; j < rows; ++j) {
    const float4 v = *reinterpret_cast<const float4*>(stage + first + j * 32 * vec);
    const float xs[4] = {v.x, v.y, v.z, v.w};
    kept[j] = 0u;
#pragma unroll
    for (int c = 0; c < vec; ++c) {
      const int e = first + j * 32 * vec + c;
      kept[j] |= (e < valid && pred(xs[c])) ? 1u << c : 0u;
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
  int warp_count = 0;
  // Compact the warp's kept items to the start of its region, row by row: every lane reads its
  // row-j vector before any lane writes row j's kept items (which land at or before row j).
#pragma unroll
  for (int j = 0; j < rows; ++j) {
    const int shift = Arr::field_bits * (j % Arr::fields);
    const int lanes_up_to_here = static_cast<int>((inclusive[j / Arr::fields] >> shift) & field_mask);
    const int before = warp_count + lanes_up_to_here - __popc(kept[j]);
    warp_count += static_cast<int>((total[j / Arr::fields] >> shift) & field_mask);
    const float4 v = reload(stage + first + j * 32 * vec);
    const float xs[4] = {v.x, v.y, v.z, v.w};
    __syncwarp();
#pragma unroll
    for (int c = 0; c < vec; ++c) {
      if ((kept[j] >> c) & 1u) stage[region + before + __popc(kept[j] & ((1u << c) - 1u))] = xs[c];
    }
    __syncwarp();
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
    if (tile == 0) {
      td::FirstTileCallback<unsigned, td::TileStatus<unsigned>, tilecraft::Sum> first_tile{status, tilecraft::Sum{}, 0u,
                                                                                           &tile_prefix, nullptr};
      (void)first_tile(aggregate);
    } else {
      td::LookBackCallback<unsigned, td::TileStatus<unsigned>, tilecraft::Sum> look_back{
          status, tile, tilecraft::Sum{}, look_back_buf, &tile_prefix, nullptr};
      (void)look_back(aggregate);
    }
  }
  __syncthreads();
  const long long prefix = tile_prefix;
  float* dst = out + prefix + warp_offset;
  if constexpr (Store == 0) {
    for (int k = lane; k < warp_count; k += 32) dst[k] = stage[region + k];
  } else {
    // The warp's run as aligned 16-byte vectors: a scalar head up to dst's next 16-byte
    // boundary, vectors built from two aligned shared vectors shifted by the head, a scalar
    // tail (reads up to 8 floats past the run: the next region, or the stage's pad).
    const float* run = stage + region;
    const int head = static_cast<int>((4 - ((reinterpret_cast<std::uintptr_t>(dst) / 4) & 3)) & 3);
    const int h = head < warp_count ? head : warp_count;
    if (lane < h) dst[lane] = run[lane];
    const int body = (warp_count - h) / 4;
    const uint4* sv = reinterpret_cast<const uint4*>(run);
    uint4* ov = reinterpret_cast<uint4*>(dst + h);
    const int sh = h & 3;
    for (int q = lane; q < body; q += 32) {
      const uint4 a = sv[(h >> 2) + q];
      uint4 r;
      if (sh == 0) {
        r = a;
      } else {
        const uint4 b = sv[(h >> 2) + q + 1];
        if (sh == 1)
          r = make_uint4(a.y, a.z, a.w, b.x);
        else if (sh == 2)
          r = make_uint4(a.z, a.w, b.x, b.y);
        else
          r = make_uint4(a.w, b.x, b.y, b.z);
      }
      ov[q] = r;
    }
    const int done = h + 4 * body;
    if (lane < warp_count - done) dst[done + lane] = run[done + lane];
  }
  if (base + valid == n && threadIdx.x == 0) *num_selected = static_cast<long long>(prefix + kept_here);
}

struct Variant {
  const char* name;
  void (*launch)(const float*, float*, long long, long long*, void*, cudaStream_t);
  bool checked;
};

template <int Threads, int Items, int Store, int MinBlocks, int AheadPercent>
void launch_smem(const float* in, float* out, long long n, long long* count, void* temp, cudaStream_t s) {
  constexpr int elems = Threads * Items;
  const long long tiles = (n + elems - 1) / elems;
  auto* counter = static_cast<unsigned*>(temp);
  const td::TileStatus<unsigned> status(static_cast<unsigned char*>(temp) + td::scan_header_bytes, tiles);
  td::scan_init_kernel<td::TileStatus<unsigned>>
      <<<static_cast<unsigned>((tiles + 255) / 256), 256, 0, s>>>(status, tiles, counter);
  auto k = sel_smem<Threads, Items, Store, MinBlocks>;
  static long long ahead = -1;
  if (ahead < 0) {
    int per_sm = 0, sms = 0;
    CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, k, Threads, 0));
    CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
    cudaFuncAttributes attr{};
    CK(cudaFuncGetAttributes(&attr, k));
    ahead = static_cast<long long>(sms) * AheadPercent / 100;
    std::printf("  (sel_smem<%d, %d, %d, %d>: %d registers, %d blocks an SM, %lld tiles ahead)\n", Threads, Items,
                Store, MinBlocks, attr.numRegs, per_sm, ahead);
  }
  k<<<static_cast<unsigned>(tiles), Threads, 0, s>>>(in, out, n, Below{}, count, status, counter, ahead);
}

void launch_lib(const float* in, float* out, long long n, long long* count, void* temp, cudaStream_t s) {
  std::size_t bytes = std::size_t{64} << 20;
  CK(tilecraft::select_if(temp, bytes, in, out, count, n, Below{}, s));
}

void* g_cub_temp = nullptr;

int main() {
  for (const long long n : {1ll << 28, (1ll << 24) + 77}) {
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
    launch_lib(in, ref, n, count, temp, s);
    CK(cudaStreamSynchronize(s));
    long long ref_count = 0;
    CK(cudaMemcpy(&ref_count, count, 8, cudaMemcpyDeviceToHost));
    std::printf("n %lld: kept %lld\n", n, ref_count);
    std::size_t cub_bytes = 0;
    CK(cub::DeviceSelect::If(nullptr, cub_bytes, in, out, count, n, Below{}, s));
    CK(cudaMalloc(&g_cub_temp, cub_bytes));
    const Variant variants[] = {
        {"library", launch_lib, true},
        {"smem 128 x 64, scalar stores, 6 an SM", launch_smem<128, 64, 0, 6, 100>, true},
        {"smem 128 x 64, vector stores, 6 an SM", launch_smem<128, 64, 1, 6, 100>, true},
        {"smem 128 x 64, vector stores, 5 an SM", launch_smem<128, 64, 1, 5, 100>, true},
        {"smem 128 x 64, vector stores, 6, ahead 1/2 SM", launch_smem<128, 64, 1, 6, 50>, true},
        {"smem 128 x 64, vector stores, 6, ahead 2 SMs", launch_smem<128, 64, 1, 6, 200>, true},
        {"smem 256 x 32, vector stores, 3 an SM", launch_smem<256, 32, 1, 3, 100>, true},
        {"smem 128 x 32, vector stores, 8 an SM", launch_smem<128, 32, 1, 8, 200>, true},
        {"smem 128 x 32, vector stores, 12 an SM", launch_smem<128, 32, 1, 12, 200>, true},
        {"cub::DeviceSelect::If",
         [](const float* i, float* o, long long m, long long* c, void*, cudaStream_t st) {
           std::size_t b = 0;
           CK(cub::DeviceSelect::If(nullptr, b, i, o, c, m, Below{}, st));
           CK(cub::DeviceSelect::If(g_cub_temp, b, i, o, c, m, Below{}, st));
         },
         true},
    };
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
      long long c = -1;
      CK(cudaMemcpy(&c, count, 8, cudaMemcpyDeviceToHost));
      CK(cudaMemcpy(host_out.data(), out, ref_count * 4, cudaMemcpyDeviceToHost));
      const char* verdict =
          c == ref_count && std::memcmp(host_out.data(), host_ref.data(), ref_count * 4) == 0 ? "ok" : "WRONG";
      std::printf("%-45s %8.1f us (min %8.1f) %s\n", v.name, t[t.size() / 2], t.front(), verdict);
    }
    CK(cudaFree(in));
    CK(cudaFree(out));
    CK(cudaFree(ref));
    CK(cudaFree(flush));
    CK(cudaFree(count));
    CK(cudaFree(temp));
    CK(cudaFree(g_cub_temp));
  }
  return 0;
}
