// The copy under the scan's structure, by three transfers: one block a tile of 8192 floats
// (32 KiB, 128 threads, as the f32 scan's 128 x 64), the tile staged in shared memory, then
// stored. Measured (benchmarks/TUNING.md, "The copy under the scan"): 0.953x memcpy at 2^28
// without a prefetch, 0.881x with the library's L2 prefetch of the tile one SM's worth of blocks
// ahead, whatever the transfer; the scan runs at the prefetched copy's speed. Does one bulk
// prefetch a tile (one instruction instead of 256 line prefetches) cost the copy less?
//   cp.async      each thread 16 x cp.async.cg 16 bytes, wait_all, barrier, 16-byte stores
//   bulk load     thread 0: one cp.async.bulk of 32 KiB completing on an mbarrier; 16-byte stores
//   bulk load 4   the same as four 8 KiB bulk copies
//   bulk both     the bulk load, then thread 0 stores the tile by cp.async.bulk (bulk_group)
// Each without a prefetch, with the library's (a prefetch.global.L2 a line) and with one
// cp.async.bulk.prefetch.L2 of the whole tile by thread 0; L2 flushed, medians of 11 runs, us,
// against memcpy of the same bytes; every output compared with the input.
#include <tilecraft/arch/cp_async.cuh>
#include <tilecraft/arch/mbarrier.cuh>
#include <tilecraft/arch/prefetch.cuh>
#include <tilecraft/arch/smem_address.cuh>

#include <cstdio>
#include <cstring>
#include <vector>

#include "../experiment_util.cuh"

constexpr int threads = 128;
constexpr int tile = 8192;  // floats
constexpr int tile_bytes = tile * 4;

enum class Kind { cp_async, bulk, bulk4, bulk_both };

__device__ __forceinline__ void bulk_load(std::uint32_t dst, const void* src, std::uint32_t bytes, std::uint32_t bar) {
  asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];" ::"r"(dst),
               "l"(__cvta_generic_to_global(src)), "r"(bytes), "r"(bar)
               : "memory");
}

__device__ __forceinline__ void bulk_store(void* dst, std::uint32_t src, std::uint32_t bytes) {
  asm volatile("cp.async.bulk.global.shared::cta.bulk_group [%0], [%1], %2;" ::"l"(__cvta_generic_to_global(dst)),
               "r"(src), "r"(bytes)
               : "memory");
  asm volatile("cp.async.bulk.commit_group;" ::: "memory");
  asm volatile("cp.async.bulk.wait_group.read 0;" ::: "memory");
}

__device__ __forceinline__ void bulk_prefetch(const void* src, std::uint32_t bytes) {
  asm volatile("cp.async.bulk.prefetch.L2.global [%0], %1;" ::"l"(__cvta_generic_to_global(src)), "r"(bytes)
               : "memory");
}

template <Kind K>
__global__ void __launch_bounds__(threads) copy_tiles(const float* in, float* out, long long n, long long ahead) {
  __shared__ alignas(128) uint4 stage[tile / 4];
  __shared__ std::uint64_t full;
  const int t = static_cast<int>(threadIdx.x);
  const long long base = static_cast<long long>(blockIdx.x) * tile;
  // ahead > 0: the tile `ahead` blocks later, a prefetch.global.L2 a line (the library's);
  // ahead < 0: the tile -ahead blocks later, one cp.async.bulk.prefetch.L2 by thread 0.
  const long long later = base + (ahead > 0 ? ahead : -ahead) * tile;
  if (ahead > 0 && later + tile <= n) tilecraft::arch::prefetch_l2_block<threads, tile_bytes>(in + later, t);
  if (ahead < 0 && later + tile <= n && t == 0) bulk_prefetch(in + later, tile_bytes);
  const uint4* src = reinterpret_cast<const uint4*>(in + base);
  uint4* dst = reinterpret_cast<uint4*>(out + base);
  if constexpr (K == Kind::cp_async) {
#pragma unroll
    for (int k = 0; k < tile / 4 / threads; ++k) {
      tilecraft::arch::cp_async_cg<16>(tilecraft::arch::smem_address(stage + k * threads + t), src + k * threads + t);
    }
    tilecraft::arch::cp_async_commit();
    tilecraft::arch::cp_async_wait_all();
    __syncthreads();
  } else {
    const std::uint32_t bar = tilecraft::arch::smem_address(&full);
    if (t == 0) {
      tilecraft::arch::mbarrier_init(&full, 1);
      tilecraft::arch::mbarrier_init_fence();
    }
    __syncthreads();
    if (t == 0) {
      tilecraft::arch::mbarrier_arrive_expect_tx(bar, tile_bytes);
      if constexpr (K == Kind::bulk4) {
#pragma unroll
        for (int q = 0; q < 4; ++q) {
          bulk_load(tilecraft::arch::smem_address(stage + q * tile / 16), src + q * tile / 16, tile_bytes / 4, bar);
        }
      } else {
        bulk_load(tilecraft::arch::smem_address(stage), src, tile_bytes, bar);
      }
    }
    tilecraft::arch::mbarrier_wait(bar, 0);
  }
  if constexpr (K == Kind::bulk_both) {
    if (t == 0) bulk_store(dst, tilecraft::arch::smem_address(stage), tile_bytes);
  } else {
#pragma unroll
    for (int k = 0; k < tile / 4 / threads; ++k) dst[k * threads + t] = stage[k * threads + t];
  }
}

// `copy ncu`: each kernel once at 2^28, cp.async and bulk loads with each prefetch,
// for Nsight Compute (run_ncu.sh: does the prefetch read DRAM twice, or only delay the loads?).
int main(int argc, char** argv) {
  const bool once = argc > 1 && std::strcmp(argv[1], "ncu") == 0;
  cudaStream_t s;
  CK(cudaStreamCreate(&s));
  int sms = 0;
  CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  char* flush;
  CK(cudaMalloc(&flush, 256 << 20));
  if (once) {
    const long long n = 1ll << 28;
    float *in, *out;
    CK(cudaMalloc(&in, n * 4));
    CK(cudaMalloc(&out, n * 4));
    CK(cudaMemset(in, 1, n * 4));
    for (long long ahead : {0ll, static_cast<long long>(sms), -static_cast<long long>(sms)}) {
      CK(cudaMemsetAsync(flush, 0, 256 << 20, s));
      copy_tiles<Kind::cp_async><<<static_cast<unsigned>(n / tile), threads, 0, s>>>(in, out, n, ahead);
      CK(cudaMemsetAsync(flush, 0, 256 << 20, s));
      copy_tiles<Kind::bulk><<<static_cast<unsigned>(n / tile), threads, 0, s>>>(in, out, n, ahead);
    }
    CK(cudaStreamSynchronize(s));
    CK(cudaGetLastError());
    return 0;
  }
  for (const long long n : {1ll << 24, 1ll << 26, 1ll << 28}) {
    float *in, *out;
    CK(cudaMalloc(&in, n * 4));
    CK(cudaMalloc(&out, n * 4));
    std::vector<float> host(static_cast<std::size_t>(n));
    for (long long i = 0; i < n; ++i) host[i] = static_cast<float>(index_hash(i) >> 8);
    CK(cudaMemcpy(in, host.data(), n * 4, cudaMemcpyHostToDevice));
    const float copy =
        median_us([&] { CK(cudaMemcpyAsync(out, in, n * 4, cudaMemcpyDeviceToDevice, s)); }, flush, 256 << 20, s);
    std::printf("n=2^%d floats (%lld tiles): memcpy %.1f us\n", __builtin_ctzll(n), n / tile, copy);
    auto run = [&]<Kind K>(const char* name, long long ahead) {
      CK(cudaMemsetAsync(out, 0xff, n * 4, s));
      const float us = median_us(
          [&] {
            copy_tiles<K><<<static_cast<unsigned>(n / tile), threads, 0, s>>>(in, out, n, ahead);
            CK(cudaGetLastError());
          },
          flush, 256 << 20, s);
      std::vector<float> got(static_cast<std::size_t>(n));
      CK(cudaMemcpy(got.data(), out, n * 4, cudaMemcpyDeviceToHost));
      const bool same = std::memcmp(got.data(), host.data(), n * 4) == 0;
      std::printf("  %-14s %-12s %8.1f us (%.3fx memcpy)%s\n", name,
                  ahead > 0   ? "prefetch"
                  : ahead < 0 ? "bulk prefetch"
                              : "no prefetch",
                  us, copy / us, same ? "" : "  WRONG");
    };
    for (long long ahead : {0ll, static_cast<long long>(sms), -static_cast<long long>(sms)}) {
      for (int round = 0; round < 2; ++round) {
        run.template operator()<Kind::cp_async>("cp.async", ahead);
        run.template operator()<Kind::bulk>("bulk load", ahead);
        run.template operator()<Kind::bulk4>("bulk load 4", ahead);
        run.template operator()<Kind::bulk_both>("bulk both", ahead);
      }
    }
    CK(cudaFree(in));
    CK(cudaFree(out));
  }
  return 0;
}
