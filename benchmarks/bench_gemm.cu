// GEMM: tilecraft::gemm (default policy, chosen by shape) against cuBLAS SGEMM in FP32
// (CUBLAS_PEDANTIC_MATH: FFMA only, no TF32 tensor cores) on the same data, with the course's
// tiled kernels (examples/course/gemm_course.cuh: shared tiles, then 1x2 register blocking, 32 x
// 32 tiles) as textbook baselines at two of the square sizes they take. C = A B, float,
// row-major, alpha = 1, beta = 0; cuBLAS, column-major, computes C^T = B^T A^T on the same memory:
// the same product of the same bytes into the same C.
// Named gemm_f32/<impl>/<M>x<N>x<K> (report.py keeps the MxNxK size as a string; goals.py's GEMM
// goals match family ^gemm, peer cublas and that size). Counters: median_us, TFLOP/s (2 M N K
// per median run), ratio (cuBLAS time / this time, > 1: faster than cuBLAS) and max_rel_err
// (max |C - C_cublas| / max |C_cublas| after the timed runs; above 1e-4 the run is reported as
// an error, so a wrong kernel cannot post a rate).
// Inputs: uniform in [-1, 1) from a hash of the index, generated on the GPU once for all shapes
// (every shape reads the leading part of the same two 8192 x 8192 buffers).
#include <cublas_v2.h>

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <stdexcept>
#include <string>

#include <tilecraft/device/gemm.cuh>

#include "../examples/course/gemm_course.cuh"
#include "harness.cuh"

using namespace tilecraft::bench;

namespace {

void check_cublas(cublasStatus_t status, const char* what) {
  if (status != CUBLAS_STATUS_SUCCESS)
    throw std::runtime_error(std::string(what) + " failed: " + cublasGetStatusString(status));
}
#define TILECRAFT_CUBLAS_CHECK(...) check_cublas((__VA_ARGS__), #__VA_ARGS__)

//! One problem: C (m x n) = A (m x k) * B (k x n).
struct GemmSize {
  std::int64_t m, n, k;
  std::string name() const { return std::to_string(m) + "x" + std::to_string(n) + "x" + std::to_string(k); }
  double flops() const { return 2.0 * static_cast<double>(m) * static_cast<double>(n) * static_cast<double>(k); }
};

// The shapes of the GEMM goals: cubes, skinny M, a short K, and sizes that are multiples of
// nothing (odd leading dimensions: no 16-byte vector fills or stores).
constexpr GemmSize gemm_sizes[] = {
    {512, 512, 512},  {1024, 1024, 1024}, {2048, 2048, 2048}, {4096, 4096, 4096}, {8192, 8192, 8192},
    {64, 8192, 8192}, {128, 8192, 8192},  {8192, 8192, 64},   {1000, 999, 1001},  {4097, 4095, 4093},
};
// Elements of the largest operand or result above.
constexpr std::size_t gemm_max_elems = std::size_t{8192} * 8192;

// p[i] uniform in [-1, 1), from a hash of (i, seed): fills gigabytes in microseconds, where the
// harness's host generator would take seconds per shape.
__global__ void fill_hashed(float* p, std::size_t n, std::uint32_t seed) {
  for (std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x; i < n;
       i += std::size_t{gridDim.x} * blockDim.x) {
    std::uint32_t h = static_cast<std::uint32_t>(i) * 0x9e3779b9u + seed + static_cast<std::uint32_t>(i >> 32);
    h ^= h >> 16;  // lowbias32
    h *= 0x7feb352du;
    h ^= h >> 15;
    h *= 0x846ca68bu;
    h ^= h >> 16;
    p[i] = static_cast<float>(h >> 8) * (2.0f / 16777216.0f) - 1.0f;
  }
}

// out[0] = max |c - ref| (+inf for a NaN: an element never written), out[1] = max |ref|, as
// float bits (non-negative floats order like their bits); out must start at zero.
__global__ void max_errors(const float* c, const float* ref, std::size_t n, unsigned* out) {
  float err = 0.0f, mag = 0.0f;
  for (std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x; i < n;
       i += std::size_t{gridDim.x} * blockDim.x) {
    const float d = fabsf(c[i] - ref[i]);
    err = fmaxf(err, d <= 3.0e38f ? d : INFINITY);
    mag = fmaxf(mag, fabsf(ref[i]));
  }
  for (int o = 16; o > 0; o /= 2) {
    err = fmaxf(err, __shfl_xor_sync(0xffffffffu, err, o));
    mag = fmaxf(mag, __shfl_xor_sync(0xffffffffu, mag, o));
  }
  if (threadIdx.x % 32 == 0) {
    atomicMax(&out[0], __float_as_uint(err));
    atomicMax(&out[1], __float_as_uint(mag));
  }
}

//! The operands every shape shares, the result and cuBLAS's reference result.
struct GemmData {
  DeviceMemory a{gemm_max_elems * sizeof(float)}, b{gemm_max_elems * sizeof(float)};
  DeviceMemory c{gemm_max_elems * sizeof(float)}, ref{gemm_max_elems * sizeof(float)};
  DeviceMemory errors{2 * sizeof(unsigned)};
  GemmData() {
    fill_hashed<<<1024, 256>>>(a.as<float>(), gemm_max_elems, 1);
    fill_hashed<<<1024, 256>>>(b.as<float>(), gemm_max_elems, 2);
    TILECRAFT_BENCH_CHECK(cudaGetLastError());
    TILECRAFT_BENCH_CHECK(cudaDeviceSynchronize());
  }
};
GemmData& gemm_data() {
  static const auto data = std::make_unique<GemmData>();
  return *data;
}

//! One cuBLAS handle for the binary, in FP32 pedantic math (no TF32, no reduced-precision
//! reductions). Never destroyed: the CUDA context may be gone at static destruction.
cublasHandle_t cublas() {
  static const cublasHandle_t handle = [] {
    cublasHandle_t h = nullptr;
    TILECRAFT_CUBLAS_CHECK(cublasCreate(&h));
    TILECRAFT_CUBLAS_CHECK(cublasSetMathMode(h, CUBLAS_PEDANTIC_MATH));
    return h;
  }();
  return handle;
}

// Row-major C = A B with column-major cuBLAS: C^T (n x m, ld n) = B^T (n x k, ld n) A^T (k x m, ld k).
void cublas_gemm(const GemmSize& s, const float* a, const float* b, float* c, cudaStream_t stream) {
  const float one = 1.0f, zero = 0.0f;
  TILECRAFT_CUBLAS_CHECK(cublasSetStream(cublas(), stream));
  TILECRAFT_CUBLAS_CHECK(cublasSgemm(cublas(), CUBLAS_OP_N, CUBLAS_OP_N, static_cast<int>(s.n), static_cast<int>(s.m),
                                     static_cast<int>(s.k), &one, b, static_cast<int>(s.n), a, static_cast<int>(s.k),
                                     &zero, c, static_cast<int>(s.n)));
}

template <class Policy = void>
void tilecraft_gemm(const GemmSize& s, const float* a, const float* b, float* c, cudaStream_t stream) {
  using tilecraft::Op;
  using tilecraft::Order;
  TILECRAFT_BENCH_CHECK(tilecraft::gemm<Policy>(Order::row_major, Op::none, Op::none, s.m, s.n, s.k, 1.0f, a, s.k, b,
                                                s.n, 0.0f, c, s.n, stream));
}

//! Times run(a, b, c, stream) on `s` with the harness (peer: remember the time; otherwise
//! report the ratio to cuBLAS's), then checks the result of the last run against cuBLAS.
template <class Run>
void gemm_bench(benchmark::State& state, const GemmSize& s, bool peer, Run run) {
  GemmData& d = gemm_data();
  const float* a = d.a.as<float>();
  const float* b = d.b.as<float>();
  float* c = d.c.as<float>();
  const std::size_t elems = static_cast<std::size_t>(s.m * s.n);
  TILECRAFT_BENCH_CHECK(cudaMemset(c, 0xff, elems * sizeof(float)));  // NaN where nothing is written
  const std::string key = "gemm_f32/" + s.name();
  time_it(
      state, [&](cudaStream_t stream) { run(s, a, b, c, stream); }, Measure{0, s.flops()}, peer ? key : std::string{},
      peer ? std::string{} : key);
  if (peer) return;
  float* ref = d.ref.as<float>();
  unsigned* errors = d.errors.as<unsigned>();
  cublas_gemm(s, a, b, ref, nullptr);
  TILECRAFT_BENCH_CHECK(cudaMemset(errors, 0, 2 * sizeof(unsigned)));
  max_errors<<<1024, 256>>>(c, ref, elems, errors);
  TILECRAFT_BENCH_CHECK(cudaGetLastError());
  unsigned bits[2] = {};
  TILECRAFT_BENCH_CHECK(cudaMemcpy(bits, errors, sizeof bits, cudaMemcpyDeviceToHost));
  float err = 0.0f, mag = 0.0f;
  std::memcpy(&err, &bits[0], sizeof err);
  std::memcpy(&mag, &bits[1], sizeof mag);
  const double rel = mag > 0.0f ? static_cast<double>(err) / mag : static_cast<double>(err);
  state.counters["max_rel_err"] = benchmark::Counter(rel);
  if (!(rel <= 1e-4)) state.SkipWithError("the result differs from cuBLAS's (max_rel_err > 1e-4)");
}

void register_gemm(const std::string& impl, const GemmSize& s, bool peer,
                   void (*run)(const GemmSize&, const float*, const float*, float*, cudaStream_t)) {
  benchmark::RegisterBenchmark(("gemm_f32/" + impl + "/" + s.name()).c_str(),
                               [s, peer, run](benchmark::State& state) { gemm_bench(state, s, peer, run); })
      ->UseManualTime()
      ->MinTime(0.1)
      ->Unit(benchmark::kMicrosecond);
}

// The course's kernels take square N x N problems only (course::gemm_supports); 32 x 32 tiles,
// the course's fastest.
void course_tiled(const GemmSize& s, const float* a, const float* b, float* c, cudaStream_t stream) {
  TILECRAFT_BENCH_CHECK(course::launch_gemm_tiled(a, b, c, static_cast<int>(s.n), 32, stream));
}
void course_tiled_1x2(const GemmSize& s, const float* a, const float* b, float* c, cudaStream_t stream) {
  TILECRAFT_BENCH_CHECK(course::launch_gemm_tiled_1x2(a, b, c, static_cast<int>(s.n), 32, stream));
}

// The default run: per shape, cuBLAS first (the others report their ratio to it), then
// tilecraft, then the course's kernels at 2048^3 and 4096^3 (at 8192^3 they would take seconds).
const bool gemm_registered = [] {
  for (const GemmSize& s : gemm_sizes) {
    register_gemm("cublas", s, true, cublas_gemm);
    register_gemm("tilecraft", s, false, tilecraft_gemm<>);
    if (course::gemm_supports(s.m, s.n, s.k) && (s.n == 2048 || s.n == 4096)) {
      register_gemm("course_tiled", s, false, course_tiled);
      register_gemm("course_tiled_1x2", s, false, course_tiled_1x2);
    }
  }
  return true;
}();

// Configurations to tune (tilecraft::GemmPolicy), on every shape, named
// gemm_f32/tc_<TM>x<TN>x<TK>_rb<RM>x<RN>_l<LanesM>_s<Stages>_b<MinBlocksPerSm>_g<GroupM>/<MxNxK>.
// Registered only when TILECRAFT_BENCH_VARIANTS is set (benchmarks/experiment.sh sets it), so
// the default run stays the product and its peers; they report the ratio to cuBLAS when its
// benchmark of the same shape ran first, e.g.
//   benchmarks/experiment.sh OUT 'gemm_f32/(cublas|tilecraft|tc_).*/4096x4096x4096/'
//       'gemm_f32/tilecraft/4096x4096x4096/' 'gemm_kernel|sgemm'   (one command line)
// benchmarks/TUNING.md records what each measured.
template <class Policy>
std::string policy_name() {
  using Shape = typename Policy::tiled::shape;
  using Rb = typename Shape::reg_block;
  return "tc_" + std::to_string(Shape::tile_m) + "x" + std::to_string(Shape::tile_n) + "x" +
         std::to_string(Shape::tile_k) + "_rb" + std::to_string(Rb::rows) + "x" + std::to_string(Rb::cols) + "_l" +
         std::to_string(Shape::lanes_m) + "_s" + std::to_string(Shape::stages) + "_b" +
         std::to_string(Policy::min_blocks_per_sm) + "_g" + std::to_string(Policy::group_m);
}
template <class Policy>
void register_gemm_variant() {
  for (const GemmSize& s : gemm_sizes) register_gemm(policy_name<Policy>(), s, false, tilecraft_gemm<Policy>);
}
const bool gemm_variants_registered = [] {
  if (std::getenv("TILECRAFT_BENCH_VARIANTS") == nullptr) return false;
  using tilecraft::GemmPolicy;
  using tilecraft::RegBlock;
  register_gemm_variant<tilecraft::GemmPolicyLarge>();  // each default on every shape
  register_gemm_variant<tilecraft::GemmPolicySmall>();
  register_gemm_variant<GemmPolicy<128, 128, RegBlock<8, 8>, 32, 4, 3, 2, 8>>();  // K step 32, 3 stages (101 KiB)
  register_gemm_variant<GemmPolicy<128, 128, RegBlock<8, 8>, 8, 4, 4, 2, 8>>();   // 4 stages
  register_gemm_variant<GemmPolicy<128, 128, RegBlock<8, 8>, 8, 8, 3, 2, 8>>();   // 8 x 4 lane grid (64 x 32 warps)
  register_gemm_variant<GemmPolicy<256, 128, RegBlock<16, 8>, 8, 4, 3, 1, 8>>();  // cuBLAS's tile: 8 warps of 64 x 64
  register_gemm_variant<GemmPolicy<128, 256, RegBlock<8, 16>, 8, 4, 3, 1, 8>>();
  register_gemm_variant<GemmPolicy<128, 64, RegBlock<8, 4>, 8, 4, 3, 2, 8>>();
  register_gemm_variant<GemmPolicy<64, 128, RegBlock<4, 8>, 8, 4, 3, 2, 8>>();
  register_gemm_variant<GemmPolicy<64, 64, RegBlock<4, 4>, 8, 4, 3, 3, 8>>();  // 256 threads, 16 accumulators each
  return true;
}();

}  // namespace
