// The GEMM ladder: C = A B in FP32, row-major, from the course's tiled matrix multiplication to
// tilecraft::gemm, with TFLOP/s, every rung checked against cublasDgemm (FP64) on the same data
// and timed beside cuBLAS SGEMM.
//   1. naive                   one thread per element of C, A and B read from global memory:
//                              two loads per FMA (the caches catch part of the N-fold reuse)
//   2. shared tiles            32 x 32 tiles of A and B staged in shared memory, two barriers per
//                              step: 32x fewer global loads, still two shared loads per FMA
//   3. 1x2 register blocking   two elements of C per thread, the value of A reused from a
//                              register: three shared loads per two FMAs
//   4. a register block        64 x 64 tiles, 4 x 4 elements of C per thread: per k the thread
//                              reads 4 values of A and 4 of B and tilecraft::thread_mma (the
//                              library's thread level) issues the 16 FMAs: 8 loads per 16 FMAs
//   5. tilecraft::gemm<Policy> a GemmPolicy of your choosing (below): 64 x 128 tiles, 4 x 8
//                              accumulators per thread fed by LDS.128 (3 loads per 32 FMAs),
//                              a 3-stage cp.async pipeline, one barrier per K step
//   6. tilecraft::gemm         the default: the policy tilecraft chooses by shape (most large
//                              products GemmPolicySkinny: 64 x 128 tiles)
// Then the tensor cores, through tiled_gemm in a kernel of this file (TensorRung: the
// benchmarks' configurations), each math a compile-time parameter of the same building block:
//   7. TF32                    operands rounded to TF32 (10 mantissa bits), one MMA per product
//   8. TF32x3                  each operand split into two TF32 parts, three MMAs: FP32 accuracy
//   9. BF16                    the operands rounded to bfloat16 first (a conversion kernel, not
//                              timed), m16n8k16 MMAs, FP32 accumulation and C
//  10. FP16                    the same with the operands rounded to half precision
// and through the device-level tilecraft::gemm, which on an H100 / H200 built for sm_90a runs
// Hopper's warpgroup MMA (wgmma) instead (mma.sync elsewhere):
//  11. gemm<GemmMath::tf32>    operands truncated to TF32 by the tensor cores
//  12. gemm<GemmMath::tf32x3>   operands split into TF32 parts first, each stage's big x big
//                              products added into FP32 sums: FP32's accuracy
//  13. gemm on BF16 operands   the same BF16 copies as rung 9
//  14. gemm on FP16 operands   the same FP16 copies as rung 10
// Every rung is compared with an FP64 reference (cublasDgemm on the same data): the worst error
// of an element, as a fraction of sum_k |a_ik b_kj| (what its rounding scales with), is printed
// and must stay within the math's bound: 1e-5 for FP32 and TF32x3, 2e-3 for TF32 (2^-10 per
// product) and FP16 (inputs rounded to 11 significant bits: 2^-11 each, about 2^-10 per
// product), 1e-2 for BF16 (8 significant bits: 2^-8 each, about 2^-7 per product). The inputs
// are uniform in [-1, 1), well inside FP16's range. cuBLAS SGEMM (CUBLAS_PEDANTIC_MATH: FFMA
// only, no TF32) is the speed reference.
// The launchers of rungs 6 and 11-14 are compiled once for the project (tests/support/gemm_instance_*.cu,
// which define what the extern declarations below declare): in your own code, either include
// <tilecraft/device/gemm.cuh> and call gemm() (it compiles in your unit), or do the same.
// Usage: gemm_ladder [N | M N K]   (default 2048^3; the course's kernels take square matrices
// only, so for other shapes rungs 1-3 are skipped)
#include <cublas_v2.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <tilecraft/device/gemm.cuh>
#include <tilecraft/gemm/tiled_gemm.cuh>
#include <tilecraft/util/launch.cuh>

// Rungs 6 and 11-14's launchers and kernels: compiled in another unit (see the file comment).
TILECRAFT_GEMM_INSTANCE(extern, float);
TILECRAFT_GEMM_TF32_INSTANCE(extern, tilecraft::GemmMath::tf32);
TILECRAFT_GEMM_TF32_INSTANCE(extern, tilecraft::GemmMath::tf32x3);
TILECRAFT_GEMM_16BIT_INSTANCE(extern, __nv_bfloat16);
TILECRAFT_GEMM_16BIT_INSTANCE(extern, __half);

#include "course/gemm_course.cuh"
#include "example_util.cuh"

// Rung 5's configuration, yours to change: 64 x 128 tiles of C per block, RegBlock<4, 8>
// accumulators per thread, K steps of 8, a 4 x 8 lane grid per warp, 3 stages, 2 blocks per SM
// (a register cap), blocks walking down groups of 8 tile rows. GemmShape's static_asserts
// reject a shape whose parts do not divide, or whose shared accesses would conflict on banks.
using MyPolicy = tilecraft::GemmPolicy<64, 128, tilecraft::RegBlock<4, 8>, 8, 4, 3, 2, 8>;

namespace {

void check_cublas(cublasStatus_t status, const char* what) {
  if (status != CUBLAS_STATUS_SUCCESS)
    throw std::runtime_error(std::string(what) + " failed: " + cublasGetStatusString(status));
}
#define CUBLAS_CHECK(...) check_cublas((__VA_ARGS__), #__VA_ARGS__)

// Row-major C (m x n) = A (m x k) B (k x n) with cuBLAS, which is column-major: the same memory
// read column-major is C^T = B^T A^T.
void cublas_gemm(cublasHandle_t handle, std::int64_t m, std::int64_t n, std::int64_t k, const float* a, const float* b,
                 float* c) {
  const float one = 1.0f, zero = 0.0f;
  CUBLAS_CHECK(cublasSgemm(handle, CUBLAS_OP_N, CUBLAS_OP_N, static_cast<int>(n), static_cast<int>(m),
                           static_cast<int>(k), &one, b, static_cast<int>(n), a, static_cast<int>(k), &zero, c,
                           static_cast<int>(n)));
}

// Rungs 7-10: tiled_gemm on the tensor cores, one tile of C per block, the configurations the
// benchmarks measured best: TF32 128 x 128 in 4 warps of 64 x 64 (RegBlock<16, 8> on a 4 x 8
// lane grid), K steps of 16 in 4 stages; TF32x3, whose split operands take more registers,
// 64 x 128 in 4 warps of 32 x 64, K steps of 32 in 3 stages; BF16 and FP16 as TF32 with K
// steps of 32 in 3 stages. All above 48 KiB of shared memory, so dynamic shared memory, opted in once.
template <class T, tilecraft::GemmMath Math>
using TensorRung = std::conditional_t<
    Math == tilecraft::GemmMath::tf32, tilecraft::TiledGemm<128, 128, tilecraft::RegBlock<16, 8>, 16, 4, 4, T, Math>,
    std::conditional_t<Math == tilecraft::GemmMath::tf32x3,
                       tilecraft::TiledGemm<64, 128, tilecraft::RegBlock<8, 8>, 32, 4, 3, T, Math>,
                       tilecraft::TiledGemm<128, 128, tilecraft::RegBlock<16, 8>, 32, 4, 3, T, Math>>>;

template <class Gemm>
__global__ void __launch_bounds__(Gemm::threads)
    tensor_gemm(tilecraft::MatrixRef<const typename Gemm::element_type> a,
                tilecraft::MatrixRef<const typename Gemm::element_type> b, tilecraft::MatrixRef<float> c) {
  extern __shared__ __align__(16) unsigned char smem[];
  auto& storage = *reinterpret_cast<typename Gemm::TempStorage*>(smem);
  tilecraft::tiled_gemm(storage, a, b, c, blockIdx.y * std::int64_t{Gemm::shape::tile_m},
                        blockIdx.x * std::int64_t{Gemm::shape::tile_n});
}

template <class Gemm>
void launch_tensor_gemm(std::int64_t m, std::int64_t n, std::int64_t k, const typename Gemm::element_type* a,
                        const typename Gemm::element_type* b, float* c) {
  using T = typename Gemm::element_type;
  static const bool opted_in = [] {
    TILECRAFT_THROW_IF_ERROR(tilecraft::opt_in_dynamic_smem(tensor_gemm<Gemm>, Gemm::smem_bytes));
    return true;
  }();
  (void)opted_in;
  constexpr int tm = Gemm::shape::tile_m, tn = Gemm::shape::tile_n;
  const dim3 grid(static_cast<unsigned>((n + tn - 1) / tn), static_cast<unsigned>((m + tm - 1) / tm));
  tensor_gemm<Gemm><<<grid, Gemm::threads, Gemm::smem_bytes>>>(tilecraft::MatrixRef<const T>{a, m, k, k},
                                                               tilecraft::MatrixRef<const T>{b, k, n, n},
                                                               tilecraft::MatrixRef<float>{c, m, n, n});
  TILECRAFT_THROW_IF_ERROR(cudaGetLastError());
}

// Rung 4: the thread level by hand. A block of 16 x 16 threads computes a 64 x 64 tile of C,
// each thread a 4 x 4 register block: per k it reads 4 values of A and 4 of B from shared memory
// into registers, and tilecraft::thread_mma issues the 16 FMAs on them (8 shared loads per 16
// FMAs, against rung 3's 3 per 2). A thread's rows are ty, ty + 16, ... and its columns tx,
// tx + 16, ...: a warp (two rows of the thread grid) reads 2 values of A (broadcasts) and 16 of
// B in consecutive words, free of bank conflicts. Any M, N, K: outside A and B, zeros are loaded.
constexpr int rb_tile = 64, rb_k = 16, rb_side = 16, rb_r = rb_tile / rb_side;  // 4 x 4 a thread

__global__ void __launch_bounds__(rb_side* rb_side)
    gemm_register_block(const float* a, const float* b, float* c, int m, int n, int k) {
  // A's tile is stored K-major (transposed), so that a thread's 4 values of A for one k lie in
  // one row. Its rows are 66 words apart: a warp's transposing store of 16 k of one row of A
  // (banks 2 kk + r) and of the next row (2 kk + r + 1) then meets each bank once.
  __shared__ float as[rb_k][rb_tile + 2];
  __shared__ float bs[rb_k][rb_tile];
  const int tx = static_cast<int>(threadIdx.x), ty = static_cast<int>(threadIdx.y), t = ty * rb_side + tx;
  const int m0 = static_cast<int>(blockIdx.y) * rb_tile, n0 = static_cast<int>(blockIdx.x) * rb_tile;
  float acc[rb_r][rb_r] = {};
  for (std::int64_t k0 = 0; k0 < k; k0 += rb_k) {
    for (int e = t; e < rb_tile * rb_k; e += rb_side * rb_side) {
      const int r = e / rb_k, ka = e % rb_k;  // A: a row's 16 consecutive k per 16 threads
      const std::int64_t gk = k0 + ka;
      as[ka][r] = m0 + r < m && gk < k ? a[std::int64_t{m0 + r} * k + gk] : 0.0f;
      const int kb = e / rb_tile, col = e % rb_tile;  // B: 64 consecutive columns of a row
      const std::int64_t bk = k0 + kb;
      bs[kb][col] = bk < k && n0 + col < n ? b[bk * n + n0 + col] : 0.0f;
    }
    __syncthreads();  // the tiles are stored
#pragma unroll
    for (int kk = 0; kk < rb_k; ++kk) {
      float fa[rb_r], fb[rb_r];
#pragma unroll
      for (int i = 0; i < rb_r; ++i) fa[i] = as[kk][ty + rb_side * i];
#pragma unroll
      for (int j = 0; j < rb_r; ++j) fb[j] = bs[kk][tx + rb_side * j];
      tilecraft::thread_mma(acc, fa, fb);  // acc[i][j] += fa[i] * fb[j]: 16 FFMAs on registers
    }
    __syncthreads();  // every thread is done with the tiles before they are refilled
  }
#pragma unroll
  for (int i = 0; i < rb_r; ++i) {
#pragma unroll
    for (int j = 0; j < rb_r; ++j) {
      const int row = m0 + ty + rb_side * i, col = n0 + tx + rb_side * j;
      if (row < m && col < n) c[std::int64_t{row} * n + col] = acc[i][j];
    }
  }
}

void launch_register_block(std::int64_t m, std::int64_t n, std::int64_t k, const float* a, const float* b, float* c) {
  const dim3 grid(static_cast<unsigned>((n + rb_tile - 1) / rb_tile),
                  static_cast<unsigned>((m + rb_tile - 1) / rb_tile));
  gemm_register_block<<<grid, dim3(rb_side, rb_side)>>>(a, b, c, static_cast<int>(m), static_cast<int>(n),
                                                        static_cast<int>(k));
  TILECRAFT_THROW_IF_ERROR(cudaGetLastError());
}

// out[i] = in[i] rounded to T (__nv_bfloat16 or __half), to nearest even.
template <class T>
__global__ void to_16bit(const float* in, T* out, std::int64_t n) {
  for (std::int64_t i = blockIdx.x * std::int64_t{blockDim.x} + threadIdx.x; i < n;
       i += std::int64_t{gridDim.x} * blockDim.x) {
    if constexpr (std::is_same_v<T, __half>) {
      out[i] = __float2half_rn(in[i]);
    } else {
      out[i] = __float2bfloat16_rn(in[i]);
    }
  }
}

}  // namespace

int main(int argc, char** argv) {
  if (!example::have_gpu("gemm_ladder")) return 0;
  std::int64_t m = 2048, n = 2048, k = 2048;
  if (argc == 2) {
    m = n = k = std::atoll(argv[1]);
  } else if (argc == 4) {
    m = std::atoll(argv[1]);
    n = std::atoll(argv[2]);
    k = std::atoll(argv[3]);
  }
  if ((argc != 1 && argc != 2 && argc != 4) || m < 1 || n < 1 || k < 1 || m > INT32_MAX || n > INT32_MAX ||
      k > INT32_MAX) {
    std::fprintf(stderr, "usage: gemm_ladder [N | M N K]   (sizes >= 1)\n");
    return 1;
  }
  const auto mk = static_cast<std::size_t>(m * k), kn = static_cast<std::size_t>(k * n);
  const auto mn = static_cast<std::size_t>(m * n);
  std::vector<float> ha(mk), hb(kn), abs_a(mk), abs_b(kn);
  example::UniformFloats dist(-1.0f, 1.0f, 7);
  for (auto& x : ha) x = dist();
  for (auto& x : hb) x = dist();
  std::transform(ha.begin(), ha.end(), abs_a.begin(), [](float x) { return std::fabs(x); });
  std::transform(hb.begin(), hb.end(), abs_b.begin(), [](float x) { return std::fabs(x); });
  float *a = example::device_copy(ha), *b = example::device_copy(hb), *da = example::device_copy(abs_a),
        *db = example::device_copy(abs_b);
  float *c = nullptr, *scale = nullptr;
  TILECRAFT_THROW_IF_ERROR(cudaMalloc(&c, mn * sizeof(float)));
  TILECRAFT_THROW_IF_ERROR(cudaMalloc(&scale, mn * sizeof(float)));

  cublasHandle_t handle;
  CUBLAS_CHECK(cublasCreate(&handle));
  CUBLAS_CHECK(cublasSetMathMode(handle, CUBLAS_PEDANTIC_MATH));
  // The FP64 reference (cublasDgemm on the same values: C^T = B^T A^T, as cublas_gemm), and the
  // size of each element's terms (|A| |B|): the rounding errors scale with it.
  std::vector<double> ha64(ha.begin(), ha.end()), hb64(hb.begin(), hb.end());
  double *a64 = example::device_copy(ha64), *b64 = example::device_copy(hb64), *ref = nullptr;
  TILECRAFT_THROW_IF_ERROR(cudaMalloc(&ref, mn * sizeof(double)));
  const double one = 1.0, zero = 0.0;
  CUBLAS_CHECK(cublasDgemm(handle, CUBLAS_OP_N, CUBLAS_OP_N, static_cast<int>(n), static_cast<int>(m),
                           static_cast<int>(k), &one, b64, static_cast<int>(n), a64, static_cast<int>(k), &zero, ref,
                           static_cast<int>(n)));
  cublas_gemm(handle, m, n, k, da, db, scale);
  std::vector<double> h_ref(mn);
  std::vector<float> h_scale(mn), got(mn);
  TILECRAFT_THROW_IF_ERROR(cudaMemcpy(h_ref.data(), ref, mn * sizeof(double), cudaMemcpyDeviceToHost));
  TILECRAFT_THROW_IF_ERROR(cudaMemcpy(h_scale.data(), scale, mn * sizeof(float), cudaMemcpyDeviceToHost));
  // The worst |C - C_fp64| / sum_k |a_ik b_kj| (infinite for a NaN: an element never written).
  auto worst_error = [&] {
    TILECRAFT_THROW_IF_ERROR(cudaMemcpy(got.data(), c, mn * sizeof(float), cudaMemcpyDeviceToHost));
    double worst = 0;
    for (std::size_t i = 0; i < mn; ++i) {
      const double e = std::fabs(static_cast<double>(got[i]) - h_ref[i]) / std::max(double(h_scale[i]), 1e-30);
      worst = e == e ? std::max(worst, e) : INFINITY;
    }
    return worst;
  };

  const double flops = 2.0 * static_cast<double>(m) * static_cast<double>(n) * static_cast<double>(k);
  // One run first, to pick a repeat count that keeps each rung near 0.2 s (the naive rung at a
  // large N takes long).
  auto time_ms = [](auto launch) {
    const double once = std::max(example::time_ms(launch, 1), 1e-3);
    return example::time_ms(launch, static_cast<int>(std::clamp(200.0 / once, 1.0, 20.0)));
  };
  std::printf("C (%lld x %lld) = A (%lld x %lld) B (%lld x %lld), float, row-major\n", static_cast<long long>(m),
              static_cast<long long>(n), static_cast<long long>(m), static_cast<long long>(k),
              static_cast<long long>(k), static_cast<long long>(n));
  const double cublas_ms = time_ms([&] { cublas_gemm(handle, m, n, k, a, b, c); });
  example::report_flops("cuBLAS SGEMM, FP32", cublas_ms, flops, "(reference)");

  bool all_ok = true;
  auto rung = [&](const char* name, auto launch, double bound = 1e-5) {
    TILECRAFT_THROW_IF_ERROR(cudaMemset(c, 0xff, mn * sizeof(float)));  // NaN where nothing is written
    launch();
    const double worst = worst_error();
    const bool ok = worst <= bound;
    all_ok = all_ok && ok;
    const double ms = time_ms(launch);
    char verdict[96];
    std::snprintf(verdict, sizeof verdict, "%s, %.2fx cuBLAS, error %.1e (bound %.0e)", example::verdict(ok),
                  cublas_ms / ms, worst, bound);
    example::report_flops(name, ms, flops, verdict);
  };
  const int sq = static_cast<int>(n);
  if (course::gemm_supports(m, n, k)) {
    rung("1 naive", [&] { TILECRAFT_THROW_IF_ERROR(course::launch_gemm_simple(a, b, c, sq)); });
    rung("2 shared tiles, 32 x 32", [&] { TILECRAFT_THROW_IF_ERROR(course::launch_gemm_tiled(a, b, c, sq)); });
    rung("3 1x2 register blocking", [&] { TILECRAFT_THROW_IF_ERROR(course::launch_gemm_tiled_1x2(a, b, c, sq)); });
  } else {
    std::printf("  rungs 1-3 skipped: the course's kernels take square matrices up to %d only\n", course::gemm_max_n);
  }
  // (A grid row per tile row here and in rungs 7-10; tilecraft::gemm walks its tiles instead.)
  const bool grid_rows_fit = (m + 63) / 64 <= 65535;
  if (grid_rows_fit) {
    rung("4 register block 4 x 4, thread_mma", [&] { launch_register_block(m, n, k, a, b, c); });
  } else {
    std::printf("  rung 4 skipped: a grid row per tile row, and M / 64 exceeds the grid's 65535 rows\n");
  }
  using tilecraft::Op;
  using tilecraft::Order;
  std::printf("  (rung 5: %d x %d tiles, RegBlock<%d, %d>, %d threads, %zu bytes of shared memory)\n",
              MyPolicy::tiled::shape::tile_m, MyPolicy::tiled::shape::tile_n, MyPolicy::tiled::shape::reg_block::rows,
              MyPolicy::tiled::shape::reg_block::cols, MyPolicy::tiled::threads, MyPolicy::tiled::smem_bytes);
  rung("5 tilecraft::gemm<MyPolicy>", [&] {
    TILECRAFT_THROW_IF_ERROR(
        tilecraft::gemm<MyPolicy>(Order::row_major, Op::none, Op::none, m, n, k, 1.0f, a, k, b, n, 0.0f, c, n));
  });
  rung("6 tilecraft::gemm, default policy", [&] {
    TILECRAFT_THROW_IF_ERROR(
        tilecraft::gemm(Order::row_major, Op::none, Op::none, m, n, k, 1.0f, a, k, b, n, 0.0f, c, n));
  });

  using tilecraft::GemmMath;
  __nv_bfloat16 *a16 = nullptr, *b16 = nullptr;
  TILECRAFT_THROW_IF_ERROR(cudaMalloc(&a16, mk * sizeof(__nv_bfloat16)));
  TILECRAFT_THROW_IF_ERROR(cudaMalloc(&b16, kn * sizeof(__nv_bfloat16)));
  __half *ah = nullptr, *bh = nullptr;
  TILECRAFT_THROW_IF_ERROR(cudaMalloc(&ah, mk * sizeof(__half)));
  TILECRAFT_THROW_IF_ERROR(cudaMalloc(&bh, kn * sizeof(__half)));
  to_16bit<<<256, 256>>>(a, a16, static_cast<std::int64_t>(mk));
  to_16bit<<<256, 256>>>(b, b16, static_cast<std::int64_t>(kn));
  to_16bit<<<256, 256>>>(a, ah, static_cast<std::int64_t>(mk));
  to_16bit<<<256, 256>>>(b, bh, static_cast<std::int64_t>(kn));
  TILECRAFT_THROW_IF_ERROR(cudaGetLastError());
  auto tensor_rungs = [&] {
    rung(
        "7 tiled_gemm, TF32", [&] { launch_tensor_gemm<TensorRung<float, GemmMath::tf32>>(m, n, k, a, b, c); }, 2e-3);
    rung("8 tiled_gemm, TF32x3", [&] { launch_tensor_gemm<TensorRung<float, GemmMath::tf32x3>>(m, n, k, a, b, c); });
    rung(
        "9 tiled_gemm, BF16 operands",
        [&] { launch_tensor_gemm<TensorRung<__nv_bfloat16, GemmMath::mma16>>(m, n, k, a16, b16, c); }, 1e-2);
    rung(
        "10 tiled_gemm, FP16 operands",
        [&] { launch_tensor_gemm<TensorRung<__half, GemmMath::mma16>>(m, n, k, ah, bh, c); }, 2e-3);
  };
  if (!grid_rows_fit) {
    std::printf("  rungs 7-10 skipped: a grid row per tile row, and M / 64 exceeds the grid's 65535 rows\n");
  } else {
    tensor_rungs();
  }
  rung(
      "11 tilecraft::gemm<GemmMath::tf32>",
      [&] {
        TILECRAFT_THROW_IF_ERROR(tilecraft::gemm<GemmMath::tf32>(Order::row_major, Op::none, Op::none, m, n, k, 1.0f, a,
                                                                 k, b, n, 0.0f, c, n));
      },
      2e-3);
  rung("12 tilecraft::gemm<GemmMath::tf32x3>", [&] {
    TILECRAFT_THROW_IF_ERROR(
        tilecraft::gemm<GemmMath::tf32x3>(Order::row_major, Op::none, Op::none, m, n, k, 1.0f, a, k, b, n, 0.0f, c, n));
  });
  rung(
      "13 tilecraft::gemm, BF16 operands",
      [&] {
        TILECRAFT_THROW_IF_ERROR(
            tilecraft::gemm(Order::row_major, Op::none, Op::none, m, n, k, 1.0f, a16, k, b16, n, 0.0f, c, n));
      },
      1e-2);
  rung(
      "14 tilecraft::gemm, FP16 operands",
      [&] {
        TILECRAFT_THROW_IF_ERROR(
            tilecraft::gemm(Order::row_major, Op::none, Op::none, m, n, k, 1.0f, ah, k, bh, n, 0.0f, c, n));
      },
      2e-3);

  CUBLAS_CHECK(cublasDestroy(handle));
  for (float* p : {a, b, da, db, c, scale}) TILECRAFT_THROW_IF_ERROR(cudaFree(p));
  for (double* p : {a64, b64, ref}) TILECRAFT_THROW_IF_ERROR(cudaFree(p));
  for (__nv_bfloat16* p : {a16, b16}) TILECRAFT_THROW_IF_ERROR(cudaFree(p));
  for (__half* p : {ah, bh}) TILECRAFT_THROW_IF_ERROR(cudaFree(p));
  return all_ok ? 0 : 1;
}
