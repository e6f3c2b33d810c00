// The lever left for the FP32 SIMT GEMM's shapes under a wave and a half (benchmarks/TUNING.md,
// "1200^3 against every lever left"): a producer warp that fills the stages with cp.async and
// tells the computing warps through mbarriers, so that they never meet at a block barrier and
// never issue a copy. One 64 x 64 tile a block, 4 computing warps of 32 x 32 (8 x 4 a thread:
// cuBLAS's 64 x 64 x 8 kernel holds 32 accumulators a thread too), K whole, against the same
// tile with the usual mainloop (all 128 threads copy, cp.async.wait_group + __syncthreads a K
// step), cuBLAS (FP32 pedantic) and the library's default plan, on the same data.
// A is column-major (M-contiguous, as the library's packed A) and B row-major, both with leading
// dimensions rounded up to 4 floats, so every copy is a 16-byte cp.async (zero-filled past the
// edges); C row-major. Prints, per shape, each variant's median time (15 runs, L2 flushed), its
// ratio to cuBLAS and its largest |C - C_cublas| / max |C_cublas|.
// Usage: ws M N K [M N K ...]
#include <cublas_v2.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include <tilecraft/arch/cp_async.cuh>
#include <tilecraft/arch/mbarrier.cuh>
#include <tilecraft/device/gemm.cuh>
#include <tilecraft/gemm/warp_mma.cuh>

#include "../cublas_check.cuh"
#include "../experiment_util.cuh"

namespace {

constexpr int bm = 64, bn = 64, consumers = 128;

struct Problem {
  int m, n, k, lda, ldb, ldc;
  const float* a;  // column-major m x k: (i, l) at a[l * lda + i]
  const float* b;  // row-major k x n: (l, j) at b[l * ldb + j]
  float* c;        // row-major m x n
};

// Stage s of the ring: A's BK x 64 tile (K-major: row l holds columns m0 ... m0 + 63 of A's row
// l), then B's BK x 64 tile.
template <int BK>
__device__ float* stage_a(float* smem, int s) {
  return smem + s * BK * (bm + bn);
}
template <int BK>
__device__ float* stage_b(float* smem, int s) {
  return smem + s * BK * (bm + bn) + BK * bm;
}

// Thread t of P fills stage (a_dst, b_dst) with K step k0: 16-byte copies, the floats past M, N
// or K zero-filled.
template <int P, int BK>
__device__ void fill(const Problem& p, float* a_dst, float* b_dst, int m0, int n0, int k0, int t) {
#pragma unroll
  for (int v = t; v < BK * 16; v += P) {
    const int l = v / 16, c = (v % 16) * 4, gk = k0 + l;
    const int a_valid = gk < p.k ? min(max(p.m - (m0 + c), 0), 4) : 0;
    const int b_valid = gk < p.k ? min(max(p.n - (n0 + c), 0), 4) : 0;
    const float* a_src = a_valid > 0 ? p.a + static_cast<std::int64_t>(gk) * p.lda + m0 + c : p.a;
    const float* b_src = b_valid > 0 ? p.b + static_cast<std::int64_t>(gk) * p.ldb + n0 + c : p.b;
    tilecraft::arch::cp_async_cg_zfill<16>(a_dst + l * bm + c, a_src, static_cast<unsigned>(a_valid * 4));
    tilecraft::arch::cp_async_cg_zfill<16>(b_dst + l * bn + c, b_src, static_cast<unsigned>(b_valid * 4));
  }
}

// A computing thread's fragments for k: rows wm * 32 + {0, 16} + lm * 4 + 0..3 of A, columns
// wn * 32 + ln * 4 + 0..3 of B (LDS.128 each; a warp reads 4 + 8 distinct vectors, no conflict).
struct Frag {
  float a[8], b[4];
};
__device__ void load_frag(Frag& f, const float* as, const float* bs, int k, int wm, int wn, int lm, int ln) {
  const float4 a0 = *reinterpret_cast<const float4*>(as + k * bm + wm * 32 + lm * 4);
  const float4 a1 = *reinterpret_cast<const float4*>(as + k * bm + wm * 32 + 16 + lm * 4);
  const float4 b0 = *reinterpret_cast<const float4*>(bs + k * bn + wn * 32 + ln * 4);
  f.a[0] = a0.x, f.a[1] = a0.y, f.a[2] = a0.z, f.a[3] = a0.w;
  f.a[4] = a1.x, f.a[5] = a1.y, f.a[6] = a1.z, f.a[7] = a1.w;
  f.b[0] = b0.x, f.b[1] = b0.y, f.b[2] = b0.z, f.b[3] = b0.w;
}

__device__ void store_tile(const Problem& p, const float (&acc)[8][4], int m0, int n0, int wm, int wn, int lm, int ln) {
  for (int g = 0; g < 2; ++g) {
    for (int i = 0; i < 4; ++i) {
      const int row = m0 + wm * 32 + g * 16 + lm * 4 + i, col = n0 + wn * 32 + ln * 4;
      if (row >= p.m) continue;
      float* dst = p.c + static_cast<std::int64_t>(row) * p.ldc + col;
      const float* v = acc[g * 4 + i];
      if (col + 3 < p.n) {
        *reinterpret_cast<float4*>(dst) = make_float4(v[0], v[1], v[2], v[3]);
      } else {
        for (int j = 0; j < 4 && col + j < p.n; ++j) dst[j] = v[j];
      }
    }
  }
}

// The producer-warp kernel: warps 0-3 compute, warp 4 copies. full[s]: 32 arrivals a phase, one
// per producer lane, each made when that lane's copies into stage s have landed
// (cp.async.mbarrier.arrive.noinc); empty[s]: 128, one per computing thread once it holds the
// stage's last fragments in registers.
template <int Stages, int BK, int MinBlocks>
__global__ void __launch_bounds__(consumers + 32, MinBlocks) gemm_ws(Problem p) {
  extern __shared__ __align__(128) float smem[];
  auto* full = reinterpret_cast<std::uint64_t*>(smem + Stages * BK * (bm + bn));
  auto* empty = full + Stages;
  const int warp = static_cast<int>(threadIdx.x) / 32, lane = static_cast<int>(threadIdx.x) % 32;
  const int m0 = static_cast<int>(blockIdx.y) * bm, n0 = static_cast<int>(blockIdx.x) * bn;
  const int steps = (p.k + BK - 1) / BK;
  if (threadIdx.x == 0) {
    for (int s = 0; s < Stages; ++s) {
      tilecraft::arch::mbarrier_init(&full[s], 32);
      tilecraft::arch::mbarrier_init(&empty[s], consumers);
    }
    tilecraft::arch::mbarrier_init_fence();
  }
  __syncthreads();
  if (warp == consumers / 32) {
    for (int i = 0; i < steps; ++i) {
      const int s = i % Stages;
      if (i >= Stages) tilecraft::arch::mbarrier_wait(&empty[s], static_cast<unsigned>((i / Stages - 1) & 1));
      fill<32, BK>(p, stage_a<BK>(smem, s), stage_b<BK>(smem, s), m0, n0, i * BK, lane);
      asm volatile("cp.async.mbarrier.arrive.noinc.shared::cta.b64 [%0];" ::"r"(tilecraft::arch::smem_address(&full[s]))
                   : "memory");
    }
    tilecraft::arch::cp_async_wait_all();
    return;
  }
  const int wm = warp / 2, wn = warp % 2, lm = lane / 8, ln = lane % 8;
  float acc[8][4] = {};
  for (int i = 0; i < steps; ++i) {
    const int s = i % Stages;
    tilecraft::arch::mbarrier_wait(&full[s], static_cast<unsigned>((i / Stages) & 1));
    const float* as = stage_a<BK>(smem, s);
    const float* bs = stage_b<BK>(smem, s);
    Frag f[2];
    load_frag(f[0], as, bs, 0, wm, wn, lm, ln);
#pragma unroll
    for (int k = 0; k < BK; ++k) {
      if (k + 1 < BK) {
        load_frag(f[(k + 1) % 2], as, bs, k + 1, wm, wn, lm, ln);
      } else {
        tilecraft::arch::mbarrier_arrive(&empty[s]);  // every fragment of the stage is in registers
      }
      tilecraft::thread_mma(acc, f[k % 2].a, f[k % 2].b);
    }
  }
  store_tile(p, acc, m0, n0, wm, wn, lm, ln);
}

// The control: the same tile and fragments, the usual ring (every thread copies; a K step waits
// for its group and meets the block at a barrier, then refills the stage freed a step before).
template <int Stages, int BK>
__global__ void __launch_bounds__(consumers) gemm_sync(Problem p) {
  extern __shared__ __align__(128) float smem[];
  const int warp = static_cast<int>(threadIdx.x) / 32, lane = static_cast<int>(threadIdx.x) % 32;
  const int m0 = static_cast<int>(blockIdx.y) * bm, n0 = static_cast<int>(blockIdx.x) * bn;
  const int steps = (p.k + BK - 1) / BK;
  for (int s = 0; s < Stages - 1; ++s) {
    if (s < steps) fill<consumers, BK>(p, stage_a<BK>(smem, s), stage_b<BK>(smem, s), m0, n0, s * BK, threadIdx.x);
    tilecraft::arch::cp_async_commit();
  }
  const int wm = warp / 2, wn = warp % 2, lm = lane / 8, ln = lane % 8;
  float acc[8][4] = {};
  for (int i = 0; i < steps; ++i) {
    tilecraft::arch::cp_async_wait<Stages - 2>();
    __syncthreads();
    const int next = i + Stages - 1;
    if (next < steps) {
      fill<consumers, BK>(p, stage_a<BK>(smem, next % Stages), stage_b<BK>(smem, next % Stages), m0, n0, next * BK,
                          threadIdx.x);
    }
    tilecraft::arch::cp_async_commit();
    const float* as = stage_a<BK>(smem, i % Stages);
    const float* bs = stage_b<BK>(smem, i % Stages);
    Frag f[2];
    load_frag(f[0], as, bs, 0, wm, wn, lm, ln);
#pragma unroll
    for (int k = 0; k < BK; ++k) {
      if (k + 1 < BK) load_frag(f[(k + 1) % 2], as, bs, k + 1, wm, wn, lm, ln);
      tilecraft::thread_mma(acc, f[k % 2].a, f[k % 2].b);
    }
  }
  tilecraft::arch::cp_async_wait_all();
  store_tile(p, acc, m0, n0, wm, wn, lm, ln);
}

// MinBlocks: the producer-warp kernel's blocks an SM asked of ptxas (1: no cap on registers).
template <bool WS, int Stages, int BK, int MinBlocks = 1>
void launch(const Problem& p) {
  const auto kernel = WS ? gemm_ws<Stages, BK, MinBlocks> : gemm_sync<Stages, BK>;
  const std::size_t smem = Stages * BK * (bm + bn) * sizeof(float) + (WS ? 2 * Stages * 8 : 0);
  static bool opted = false;
  if (!opted) {
    CK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(smem)));
    opted = true;
  }
  const dim3 grid((p.n + bn - 1) / bn, (p.m + bm - 1) / bm);
  kernel<<<grid, WS ? consumers + 32 : consumers, smem>>>(p);
  CK(cudaGetLastError());
}

// How many blocks of the variant an SM holds (registers, shared memory, threads).
template <bool WS, int Stages, int BK, int MinBlocks = 1>
int blocks_per_sm() {
  const auto kernel = WS ? gemm_ws<Stages, BK, MinBlocks> : gemm_sync<Stages, BK>;
  const std::size_t smem = Stages * BK * (bm + bn) * sizeof(float) + (WS ? 2 * Stages * 8 : 0);
  CK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(smem)));
  int blocks = 0;
  CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, kernel, WS ? consumers + 32 : consumers, smem));
  return blocks;
}

__global__ void fill_values(float* v, std::size_t n, unsigned salt) {
  for (std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x; i < n;
       i += std::size_t{gridDim.x} * blockDim.x) {
    v[i] = static_cast<float>(index_hash(static_cast<long long>(i) + salt * 0x9E3779B9ll) % 1021) / 512.0f - 1.0f;
  }
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 4 || (argc - 1) % 3 != 0) {
    std::printf("usage: ws M N K [M N K ...]\n");
    return 1;
  }
  char* flush = nullptr;
  const std::size_t flush_bytes = 256u << 20;
  CK(cudaMalloc(&flush, flush_bytes));
  // The median of 15 timed runs, each after 256 MiB written (L2 flushed).
  auto median = [&](auto run) { return median_us(run, flush, flush_bytes, nullptr, 15); };
  cublasHandle_t h;
  CKB(cublasCreate(&h));
  CKB(cublasSetMathMode(h, CUBLAS_PEDANTIC_MATH));
  // Columns: stages x K step; b4, b5: the producer-warp kernel's registers capped for 4 or 5 blocks
  // an SM (102 or 80 registers).
  std::printf(
      "blocks an SM: sync 4x16 %d, ws 4x16 %d, ws 4x16 b4 %d, ws 4x16 b5 %d, ws 3x16 %d, ws 6x8 %d, ws 8x8 %d\n",
      blocks_per_sm<false, 4, 16>(), blocks_per_sm<true, 4, 16>(), blocks_per_sm<true, 4, 16, 4>(),
      blocks_per_sm<true, 4, 16, 5>(), blocks_per_sm<true, 3, 16>(), blocks_per_sm<true, 6, 8>(),
      blocks_per_sm<true, 8, 8>());
  std::printf("%17s | %8s | %16s | %16s | %16s | %16s | %16s | %16s | %16s | %16s\n", "shape", "cublas", "library",
              "sync 4x16", "ws 4x16", "ws 4x16 b4", "ws 4x16 b5", "ws 3x16", "ws 6x8", "ws 8x8");
  for (int arg = 1; arg + 2 < argc; arg += 3) {
    const int m = std::atoi(argv[arg]), n = std::atoi(argv[arg + 1]), k = std::atoi(argv[arg + 2]);
    const int lda = (m + 3) / 4 * 4, ldb = (n + 3) / 4 * 4, ldc = ldb;
    float *a, *b, *c, *ref;
    CK(cudaMalloc(&a, std::size_t(lda) * k * 4));
    CK(cudaMalloc(&b, std::size_t(ldb) * k * 4));
    CK(cudaMalloc(&c, std::size_t(ldc) * m * 4));
    CK(cudaMalloc(&ref, std::size_t(ldc) * m * 4));
    fill_values<<<512, 256>>>(a, std::size_t(lda) * k, 1);
    fill_values<<<512, 256>>>(b, std::size_t(ldb) * k, 2);
    CK(cudaGetLastError());
    const Problem p{m, n, k, lda, ldb, ldc, a, b, c};
    const float one = 1, zero = 0;
    // Row-major C = A B is column-major C^T = B^T A^T: B as it is (n x k, ld ldb), A transposed.
    auto cublas = [&] {
      CKB(cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_T, n, m, k, &one, b, ldb, a, lda, &zero, ref, ldc));
    };
    cublas();
    CK(cudaDeviceSynchronize());
    std::vector<float> want(std::size_t(ldc) * m), got(want.size());
    CK(cudaMemcpy(want.data(), ref, want.size() * 4, cudaMemcpyDeviceToHost));
    double scale = 0;
    for (int i = 0; i < m; ++i)
      for (int j = 0; j < n; ++j) scale = std::max(scale, double(std::fabs(want[std::size_t(i) * ldc + j])));
    auto error = [&](auto run) {
      CK(cudaMemset(c, 0xff, std::size_t(ldc) * m * 4));
      run();
      CK(cudaDeviceSynchronize());
      CK(cudaMemcpy(got.data(), c, got.size() * 4, cudaMemcpyDeviceToHost));
      double worst = 0;
      for (int i = 0; i < m; ++i) {
        for (int j = 0; j < n; ++j) {
          const double d = std::fabs(double(got[std::size_t(i) * ldc + j]) - want[std::size_t(i) * ldc + j]);
          worst = d == d ? std::max(worst, d) : 1e30;
        }
      }
      return worst / scale;
    };
    const double t_cublas = median(cublas);
    auto column = [&](auto run) {
      const double e = error(run), t = median(run);
      char buf[64];
      std::snprintf(buf, sizeof buf, "%7.1f %.3f %s", t, t_cublas / t, e < 1e-5 ? "ok" : "BAD");
      return std::string(buf);
    };
    const auto lib = column([&] {
      CK(tilecraft::gemm(tilecraft::Order::row_major, tilecraft::Op::transpose, tilecraft::Op::none, m, n, k, 1.0f, a,
                         lda, b, ldb, 0.0f, c, ldc));
    });
    const auto s416 = column([&] { launch<false, 4, 16>(p); });
    const auto w416 = column([&] { launch<true, 4, 16>(p); });
    const auto w416b4 = column([&] { launch<true, 4, 16, 4>(p); });
    const auto w416b5 = column([&] { launch<true, 4, 16, 5>(p); });
    const auto w316 = column([&] { launch<true, 3, 16>(p); });
    const auto w68 = column([&] { launch<true, 6, 8>(p); });
    const auto w88 = column([&] { launch<true, 8, 8>(p); });
    std::printf("%5dx%5dx%5d | %8.1f | %16s | %16s | %16s | %16s | %16s | %16s | %16s | %16s\n", m, n, k, t_cublas,
                lib.c_str(), s416.c_str(), w416.c_str(), w416b4.c_str(), w416b5.c_str(), w316.c_str(), w68.c_str(),
                w88.c_str());
    for (float* q : {a, b, c, ref}) CK(cudaFree(q));
  }
  CKB(cublasDestroy(h));
  return 0;
}
