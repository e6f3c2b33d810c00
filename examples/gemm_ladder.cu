// The GEMM ladder: C = A B in FP32, row-major, from the course's tiled matrix multiplication to
// tilecraft::gemm, with TFLOP/s, every rung checked against cuBLAS SGEMM on the same data.
//   1. naive                   one thread per element of C, A and B read from global memory:
//                              two loads per FMA (the caches catch part of the N-fold reuse)
//   2. shared tiles            32 x 32 tiles of A and B staged in shared memory, two barriers per
//                              step: 32x fewer global loads, still two shared loads per FMA
//   3. 1x2 register blocking   two elements of C per thread, the value of A reused from a
//                              register: three shared loads per two FMAs
//   4. tilecraft::gemm<Policy> a GemmPolicy of your choosing (below): 64 x 128 tiles, 4 x 8
//                              accumulators per thread fed by LDS.128 (3 loads per 32 FMAs),
//                              a 3-stage cp.async pipeline, one barrier per K step
//   5. tilecraft::gemm         the default: the policy tilecraft chooses by shape (for large
//                              problems GemmPolicyLarge: 128 x 128 tiles, 8 x 8 per thread)
// The reference is cuBLAS in FP32 (CUBLAS_PEDANTIC_MATH: FFMA only, no TF32); a rung is ok when
// every element is within 1e-5 of sum_k |a_ik b_kj| of it.
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
#include <vector>

#include <tilecraft/device/gemm.cuh>

#include "course/gemm_course.cuh"
#include "example_util.cuh"

// Rung 4's configuration, yours to change: 64 x 128 tiles of C per block, RegBlock<4, 8>
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

float* device_copy(const std::vector<float>& h) {
  float* d = nullptr;
  TILECRAFT_THROW_IF_ERROR(cudaMalloc(&d, h.size() * sizeof(float)));
  TILECRAFT_THROW_IF_ERROR(cudaMemcpy(d, h.data(), h.size() * sizeof(float), cudaMemcpyHostToDevice));
  return d;
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
  float *a = device_copy(ha), *b = device_copy(hb), *da = device_copy(abs_a), *db = device_copy(abs_b);
  float *c = nullptr, *ref = nullptr, *scale = nullptr;
  TILECRAFT_THROW_IF_ERROR(cudaMalloc(&c, mn * sizeof(float)));
  TILECRAFT_THROW_IF_ERROR(cudaMalloc(&ref, mn * sizeof(float)));
  TILECRAFT_THROW_IF_ERROR(cudaMalloc(&scale, mn * sizeof(float)));

  cublasHandle_t handle;
  CUBLAS_CHECK(cublasCreate(&handle));
  CUBLAS_CHECK(cublasSetMathMode(handle, CUBLAS_PEDANTIC_MATH));
  // The reference, and the size of each element's terms (|A| |B|): the float error scales with it.
  cublas_gemm(handle, m, n, k, a, b, ref);
  cublas_gemm(handle, m, n, k, da, db, scale);
  std::vector<float> h_ref(mn), h_scale(mn), got(mn);
  TILECRAFT_THROW_IF_ERROR(cudaMemcpy(h_ref.data(), ref, mn * sizeof(float), cudaMemcpyDeviceToHost));
  TILECRAFT_THROW_IF_ERROR(cudaMemcpy(h_scale.data(), scale, mn * sizeof(float), cudaMemcpyDeviceToHost));
  auto correct = [&] {
    TILECRAFT_THROW_IF_ERROR(cudaMemcpy(got.data(), c, mn * sizeof(float), cudaMemcpyDeviceToHost));
    for (std::size_t i = 0; i < mn; ++i)
      if (!(std::fabs(got[i] - h_ref[i]) <= 1e-5f * h_scale[i])) return false;  // a NaN (poison) fails too
    return true;
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
  auto rung = [&](const char* name, auto launch) {
    TILECRAFT_THROW_IF_ERROR(cudaMemset(c, 0xff, mn * sizeof(float)));  // NaN where nothing is written
    launch();
    const bool ok = correct();
    all_ok = all_ok && ok;
    const double ms = time_ms(launch);
    char verdict[64];
    std::snprintf(verdict, sizeof verdict, "%s, %.2fx cuBLAS", example::verdict(ok), cublas_ms / ms);
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
  using tilecraft::Op;
  using tilecraft::Order;
  std::printf("  (rung 4: %d x %d tiles, RegBlock<%d, %d>, %d threads, %zu bytes of shared memory)\n",
              MyPolicy::tiled::shape::tile_m, MyPolicy::tiled::shape::tile_n, MyPolicy::tiled::shape::reg_block::rows,
              MyPolicy::tiled::shape::reg_block::cols, MyPolicy::tiled::threads, MyPolicy::tiled::smem_bytes);
  rung("4 tilecraft::gemm<MyPolicy>", [&] {
    TILECRAFT_THROW_IF_ERROR(
        tilecraft::gemm<MyPolicy>(Order::row_major, Op::none, Op::none, m, n, k, 1.0f, a, k, b, n, 0.0f, c, n));
  });
  rung("5 tilecraft::gemm, default policy", [&] {
    TILECRAFT_THROW_IF_ERROR(
        tilecraft::gemm(Order::row_major, Op::none, Op::none, m, n, k, 1.0f, a, k, b, n, 0.0f, c, n));
  });

  CUBLAS_CHECK(cublasDestroy(handle));
  for (float* p : {a, b, da, db, c, ref, scale}) TILECRAFT_THROW_IF_ERROR(cudaFree(p));
  return all_ok ? 0 : 1;
}
