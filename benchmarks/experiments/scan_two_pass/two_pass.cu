// Mid-size float scans in two passes whose second pass reads the input from L2: pass 1 reduces
// each tile (the input's lines stay in L2, which holds 50 MB on the H200), pass 2 folds the
// sums of the tiles before its own (in a fixed order), scans its tile from L2 and stores it.
// Against the single-pass look-back scan (the library), CUB's InclusiveSum and memcpy, in one
// process; L2 flushed before each run, medians of 21, us. Inputs are 0 / 1 floats, so every
// inclusive sum below 2^24 is exact and the two-pass result must equal CUB's bit for bit.
// Not built by CMake; run.sh builds and runs it on the GPU machine.
#include <cub/cub.cuh>

#include <algorithm>
#include <cstdlib>
#include <cstdio>
#include <tuple>
#include <vector>

#include <tilecraft/arch/griddepcontrol.cuh>
#include <tilecraft/device/scan.cuh>

#include "../experiment_util.cuh"

namespace {

constexpr int threads = 256;

// Pass 1: the sums of SumTiles consecutive tiles (Items floats a thread each) into sums[],
// a fixed order per tile; a whole block's loads in flight before any sum (more bytes in flight
// an SM where SumTiles > 1, with fewer blocks).
template <int Items, bool Pdl = false, int SumTiles = 1>
__global__ void __launch_bounds__(threads)
    tile_sums(const float* __restrict__ in, float* __restrict__ sums, long long n) {
  if constexpr (Pdl) tilecraft::arch::launch_dependents();
  using Reduce = cub::BlockReduce<float, threads>;
  __shared__ typename Reduce::TempStorage temp;
  constexpr int tile = threads * Items;
  const long long first = static_cast<long long>(blockIdx.x) * SumTiles;
  const long long tiles = (n + tile - 1) / tile;
  float acc[SumTiles];
  if ((first + SumTiles) * tile <= n) {
    float4 x[SumTiles][Items / 4];
#pragma unroll
    for (int t = 0; t < SumTiles; ++t) {
      const float4* v = reinterpret_cast<const float4*>(in + (first + t) * tile);
#pragma unroll
      for (int i = 0; i < Items / 4; ++i) x[t][i] = v[threadIdx.x + i * threads];
    }
#pragma unroll
    for (int t = 0; t < SumTiles; ++t) {
      acc[t] = 0.0f;
#pragma unroll
      for (int i = 0; i < Items / 4; ++i) acc[t] += (x[t][i].x + x[t][i].y) + (x[t][i].z + x[t][i].w);
    }
  } else {
#pragma unroll
    for (int t = 0; t < SumTiles; ++t) {
      acc[t] = 0.0f;
      const long long base = (first + t) * tile;
      for (long long i = base + threadIdx.x; i < n && i < base + tile; i += threads) acc[t] += in[i];
    }
  }
#pragma unroll
  for (int t = 0; t < SumTiles; ++t) {
    const float total = Reduce(temp).Sum(acc[t]);
    if (threadIdx.x == 0 && first + t < tiles) sums[first + t] = total;
    __syncthreads();  // (temp again)
  }
}

// Pass 2: the prefix of tile b (the sums of tiles 0 ... b - 1, each thread a strided run in
// order, then a block reduction), then the tile scanned (warp-transposed loads from L2) and
// stored with it.
template <int Items, bool Pdl = false, bool FastPrefix = false, bool Vec = false>
__global__ void __launch_bounds__(threads)
    tile_scans(const float* __restrict__ in, const float* __restrict__ sums, float* __restrict__ out, long long n) {
  using Reduce = cub::BlockReduce<float, threads>;
  using Load = cub::BlockLoad<float, threads, Items, Vec ? cub::BLOCK_LOAD_VECTORIZE : cub::BLOCK_LOAD_WARP_TRANSPOSE>;
  using Store =
      cub::BlockStore<float, threads, Items, Vec ? cub::BLOCK_STORE_VECTORIZE : cub::BLOCK_STORE_WARP_TRANSPOSE>;
  using Scan = cub::BlockScan<float, threads>;
  __shared__ union {
    typename Reduce::TempStorage reduce;
    typename Load::TempStorage load;
    typename Store::TempStorage store;
    typename Scan::TempStorage scan;
  } temp;
  __shared__ float prefix;
  constexpr int tile = threads * Items;
  const long long base = static_cast<long long>(blockIdx.x) * tile;
  const int valid = static_cast<int>(n - base < tile ? n - base : tile);
  float items[Items];
  if (valid == tile) {
    Load(temp.load).Load(in + base, items);
  } else {
    Load(temp.load).Load(in + base, items, valid, 0.0f);
  }
  if constexpr (Pdl) tilecraft::arch::wait_for_dependencies();  // pass 1's sums (the input is read-only)
  float acc = 0.0f;
  if constexpr (FastPrefix) {
    // Up to 8 x threads sums, all loads in flight at once, added in the same order.
    float part[8];
#pragma unroll
    for (int i = 0; i < 8; ++i) {
      const unsigned t = threadIdx.x + static_cast<unsigned>(i * threads);
      part[i] = t < blockIdx.x ? sums[t] : 0.0f;
    }
#pragma unroll
    for (int i = 0; i < 8; ++i) acc += part[i];
    for (unsigned t = threadIdx.x + 8 * threads; t < blockIdx.x; t += threads) acc += sums[t];
  } else {
    for (unsigned t = threadIdx.x; t < blockIdx.x; t += threads) acc += sums[t];
  }
  __syncthreads();
  const float p = Reduce(temp.reduce).Sum(acc);
  if (threadIdx.x == 0) prefix = p;
  __syncthreads();
  const float pre = prefix;
  Scan(temp.scan).InclusiveScan(items, items, pre, cuda::std::plus<float>{});  // pre folded in first
  __syncthreads();
  if (valid == tile) {
    Store(temp.store).Store(out + base, items);
  } else {
    Store(temp.store).Store(out + base, items, valid);
  }
}

template <int Items, bool Pdl = false, bool FastPrefix = false, bool Vec = false, int SumTiles = 1>
void two_pass(const float* in, float* out, float* sums, long long n, cudaStream_t s) {
  constexpr long long tile = threads * Items;
  const unsigned tiles = static_cast<unsigned>((n + tile - 1) / tile);
  tile_sums<Items, Pdl, SumTiles><<<(tiles + SumTiles - 1) / SumTiles, threads, 0, s>>>(in, sums, n);
  if constexpr (Pdl) {
    // Pass 2 as pass 1's programmatic dependent: its blocks load their tiles as slots free up,
    // and wait for pass 1 (griddepcontrol.wait) before reading the sums.
    cudaLaunchConfig_t config{};
    config.gridDim = dim3(tiles);
    config.blockDim = dim3(threads);
    config.stream = s;
    cudaLaunchAttribute attribute{};
    attribute.id = cudaLaunchAttributeProgrammaticStreamSerialization;
    attribute.val.programmaticStreamSerializationAllowed = 1;
    config.attrs = &attribute;
    config.numAttrs = 1;
    CK(cudaLaunchKernelEx(&config, tile_scans<Items, true, FastPrefix, Vec>, in, static_cast<const float*>(sums), out,
                          n));
  } else {
    tile_scans<Items, false, FastPrefix, Vec><<<tiles, threads, 0, s>>>(in, sums, out, n);
  }
}

}  // namespace

int main(int argc, char** argv) {
  const auto logs = log2_sizes<int>(argc, argv, {20, 21, 22, 23, 24});
  const L2Flush l2_flush = l2_flush_buffer();
  char* const flush = l2_flush.ptr;
  const std::size_t flush_bytes = l2_flush.bytes;
  cudaStream_t s;
  CK(cudaStreamCreate(&s));
  std::printf("%-6s %9s %9s %14s %14s %14s %14s %14s %14s %14s %14s   (us; ratio to CUB)\n", "n", "memcpy", "cub",
              "library", "library 2p", "4096 pdl", "4096 fastpre", "8192 fastpre", "4096 sum2", "4096 sum4",
              "8192 sum2");
  for (int lg : logs) {
    const long long n = 1LL << lg;
    std::vector<float> h(static_cast<std::size_t>(n));
    for (long long i = 0; i < n; ++i) h[static_cast<std::size_t>(i)] = static_cast<float>(index_hash(i) & 1u);
    float *in, *out, *ref, *sums;
    CK(cudaMalloc(&in, n * sizeof(float)));
    CK(cudaMalloc(&out, n * sizeof(float)));
    CK(cudaMalloc(&ref, n * sizeof(float)));
    CK(cudaMalloc(&sums, (n / 1024 + 1) * sizeof(float)));
    CK(cudaMemcpy(in, h.data(), n * sizeof(float), cudaMemcpyHostToDevice));
    std::size_t cub_bytes = 0, lib_bytes = 0;
    CK(cub::DeviceScan::InclusiveSum(nullptr, cub_bytes, in, ref, n));
    CK(tilecraft::inclusive_scan(nullptr, lib_bytes, in, out, n, tilecraft::Sum{}));
    void *cub_temp, *lib_temp;
    CK(cudaMalloc(&cub_temp, cub_bytes));
    CK(cudaMalloc(&lib_temp, lib_bytes));
    CK(cub::DeviceScan::InclusiveSum(cub_temp, cub_bytes, in, ref, n, s));
    std::vector<float> want(static_cast<std::size_t>(n)), got(static_cast<std::size_t>(n));
    CK(cudaMemcpy(want.data(), ref, n * sizeof(float), cudaMemcpyDeviceToHost));
    auto check = [&](const char* what) {
      CK(cudaMemsetAsync(out, 0xA5, n * sizeof(float), s));
      return what;
    };
    auto verify = [&](const char* what) {
      CK(cudaStreamSynchronize(s));
      CK(cudaMemcpy(got.data(), out, n * sizeof(float), cudaMemcpyDeviceToHost));
      long long bad = 0;
      for (long long i = 0; i < n; ++i) bad += got[static_cast<std::size_t>(i)] != want[static_cast<std::size_t>(i)];
      if (bad != 0) std::printf("MISMATCH %s at 2^%d: %lld elements\n", what, lg, bad);
    };
    check("library");
    CK(tilecraft::inclusive_scan(lib_temp, lib_bytes, in, out, n, tilecraft::Sum{}, s));
    verify("library");
    // The library's own two passes, forced at every size (scan_run's ScanForms::two_pass; its
    // default dispatch takes them where input and output fit half the L2).
    const auto library_two_pass = [&] {
      CK((tilecraft::detail::scan_run<tilecraft::detail::DefaultScanPolicyLarge<float, float>, false,
                                      tilecraft::detail::ScanForms::two_pass>(lib_temp, lib_bytes, in, out, n,
                                                                              tilecraft::Sum{}, 0.0f, s)));
    };
    const auto variants = std::make_tuple(
        library_two_pass, [&] { two_pass<16, true>(in, out, sums, n, s); },
        [&] { two_pass<16, true, true>(in, out, sums, n, s); }, [&] { two_pass<32, true, true>(in, out, sums, n, s); },
        [&] { two_pass<16, true, true, false, 2>(in, out, sums, n, s); },
        [&] { two_pass<16, true, true, false, 4>(in, out, sums, n, s); },
        [&] { two_pass<32, true, true, false, 2>(in, out, sums, n, s); });
    std::apply([&](auto&... v) { ((check("2p"), v(), verify("2p")), ...); }, variants);
    CK(cudaGetLastError());
    const auto release = [&] {
      for (void* p : {static_cast<void*>(in), static_cast<void*>(out), static_cast<void*>(ref),
                      static_cast<void*>(sums), cub_temp, lib_temp})
        CK(cudaFree(p));
    };
    if (std::getenv("TWO_PASS_ONCE") != nullptr) {  // each form once (for Nsight Compute)
      release();
      continue;
    }
    const float t_copy =
        median_us([&] { CK(cudaMemcpyAsync(out, in, n * sizeof(float), cudaMemcpyDeviceToDevice, s)); }, flush,
                  flush_bytes, s, 21);
    const float t_cub = median_us([&] { CK(cub::DeviceScan::InclusiveSum(cub_temp, cub_bytes, in, out, n, s)); }, flush,
                                  flush_bytes, s, 21);
    const float t_lib =
        median_us([&] { CK(tilecraft::inclusive_scan(lib_temp, lib_bytes, in, out, n, tilecraft::Sum{}, s)); }, flush,
                  flush_bytes, s, 21);
    std::printf("2^%-4d %9.2f %9.2f %7.2f (%.3f)", lg, t_copy, t_cub, t_lib, t_cub / t_lib);
    const auto row = [&](auto& v) {
      const float t = median_us(v, flush, flush_bytes, s, 21);
      std::printf(" %7.2f (%.3f)", t, t_cub / t);
    };
    std::apply([&](auto&... v) { (row(v), ...); }, variants);
    std::printf("\n");
    // The 8192-item form's passes apart: pass 1 alone; pass 2 right after an untimed pass 1
    // (its input in L2); pass 2 alone after the flush (its input from DRAM).
    constexpr int items = 32;
    const unsigned tiles = static_cast<unsigned>((n + threads * items - 1) / (threads * items));
    const float t_p1 =
        median_us([&] { tile_sums<items><<<tiles, threads, 0, s>>>(in, sums, n); }, flush, flush_bytes, s, 21);
    const float t_p2_cold = median_us(
        [&] { tile_scans<items, false, true><<<tiles, threads, 0, s>>>(in, sums, out, n); }, flush, flush_bytes, s, 21);
    std::vector<float> warm;
    cudaEvent_t a, b;
    CK(cudaEventCreate(&a));
    CK(cudaEventCreate(&b));
    for (int r = 0; r <= 21; ++r) {
      CK(cudaMemsetAsync(flush, r, flush_bytes, s));
      tile_sums<items><<<tiles, threads, 0, s>>>(in, sums, n);
      CK(cudaEventRecord(a, s));
      tile_scans<items, false, true><<<tiles, threads, 0, s>>>(in, sums, out, n);
      CK(cudaEventRecord(b, s));
      CK(cudaEventSynchronize(b));
      float ms = 0;
      CK(cudaEventElapsedTime(&ms, a, b));
      if (r > 0) warm.push_back(ms * 1000.0f);
    }
    std::sort(warm.begin(), warm.end());
    CK(cudaEventDestroy(a));
    CK(cudaEventDestroy(b));
    std::printf("       8192: pass 1 alone %.2f, pass 2 after pass 1 %.2f, pass 2 from DRAM %.2f\n", t_p1,
                warm[warm.size() / 2], t_p2_cold);
    release();
  }
  return 0;
}
