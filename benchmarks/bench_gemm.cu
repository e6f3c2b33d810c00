// GEMM: tilecraft::gemm (default policy, chosen by shape) against cuBLAS SGEMM in FP32
// (CUBLAS_PEDANTIC_MATH: FFMA only, no TF32 tensor cores) on the same data, with the course's
// tiled kernels (examples/course/gemm_course.cuh: shared tiles, then 1x2 register blocking, 32 x
// 32 tiles) as textbook baselines at two of the square sizes they take. C = A B, float,
// row-major, alpha = 1, beta = 0; cuBLAS, column-major, computes C^T = B^T A^T on the same memory:
// the same product of the same bytes into the same C.
// Named gemm_f32/<impl>/<M>x<N>x<K> (report.py keeps the MxNxK size as a string and compares each
// row with the peer of the same family and size). Counters: median_us, TFLOP/s (2 M N K
// per median run), ratio (cuBLAS time / this time, > 1: faster than cuBLAS) and max_rel_err
// (max |C - C_cublas| / max |C_cublas| after the timed runs; above 1e-4 the run is reported as
// an error, so a wrong kernel cannot post a rate). Every row of float or 16-bit operands, the
// peers' too, also carries err_fp64: max |C - C64| / max |C64|, where C64 is the product of
// the same operands (converted exactly to double) by cublasDgemm, the accuracy of each math
// against the exact product of its inputs (report.py tabulates it beside the ratios).
// Inputs: uniform in [-1, 1) from a hash of the index, generated on the GPU once for all shapes
// (every shape reads the leading part of the same two 8192 x 8192 buffers).
// Double: gemm_f64/<impl>/<MxNxK> at 2048^3 and 4096^3, the same harness and check (max_rel_err
// above 1e-10 is an error) on two 4096 x 4096 buffers of doubles, against cublasDgemm. cuBLAS
// runs DGEMM on the FP64 tensor cores (DMMA) from sm_80 on, at twice the SIMT FP64 rate that
// tilecraft's DFMA kernel is bound by, so the ratio is expected well below 1. tilecraft's row
// is named tilecraft_simt, not tilecraft: the rows named tilecraft compare like with like (FP32
// FMAs on both sides), and this one, SIMT against tensor cores, does not.
// 16-bit operands: gemm_bf16/<impl>/<MxNxK> and gemm_f16/<impl>/<MxNxK> at 2048^3, 4096^3,
// 8192^3, 128 x 8192 x 8192 and 1000 x 999 x 1001 (leading dimensions of 999 and 1001: the
// element-by-element fills), row-major __nv_bfloat16 / __half A and B (two 8192 x 8192
// buffers of each type, uniform in [-1, 1) made in float and rounded on the GPU), float C: cuBLAS (cublasGemmEx,
// CUBLAS_COMPUTE_32F, FP32 output, default math mode: the peer named cublas) against
// tilecraft::gemm (tilecraft: on the H200, the wgmma path; the benchmark is built for sm_90a)
// and against tiled_gemm with GemmMath::mma16 in a plain kernel (tiled_gemm_mma16: BenchGemm16,
// one tile per block, what the device-level call runs where wgmma does not). All multiply on the
// tensor cores and accumulate in FP32, in different orders: max_rel_err above 1e-3 is an error.
#include <cublas_v2.h>
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cmath>
#include <cstdio>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <stdexcept>
#include <string>
#include <type_traits>

#include <tilecraft/device/gemm.cuh>
#include <tilecraft/gemm/tiled_gemm.cuh>
#include <tilecraft/util/launch.cuh>

#include "../examples/course/gemm_course.cuh"
#include "harness.cuh"

// The default float and double, 16-bit and TF32 launchers' kernels compile in
// tests/support/gemm_instance_*.cu (tilecraft_gemm_instances).
TILECRAFT_GEMM_INSTANCE(extern, float);
TILECRAFT_GEMM_INSTANCE(extern, double);
TILECRAFT_GEMM_16BIT_INSTANCE(extern, __nv_bfloat16);
TILECRAFT_GEMM_16BIT_INSTANCE(extern, __half);
TILECRAFT_GEMM_TF32_INSTANCE(extern, tilecraft::GemmMath::tf32);
TILECRAFT_GEMM_TF32_INSTANCE(extern, tilecraft::GemmMath::tf32x3);

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

// The shapes the GEMM is measured at: cubes, skinny M, a short K, sizes that are multiples of
// nothing (odd leading dimensions: no 16-byte vector fills or stores), last waves: 1536^3
// (144 tiles of 128 x 128 on 132 SMs) and 3072^3 (576 tiles: two waves of 264 and 48 tiles),
// and ragged edges: 1025^3 (one row and column peeled), 1031 x 1029 x 1027 (7 and 5 peeled),
// 1100 x 1300 x 1500 (76 and 20 rows and columns, kept in their tiles), 1200^3 (48 of each:
// 100 tiles of 128 x 128, 361 of 64 x 64, under a wave either way), and the slowest against
// cuBLAS as planned of 40 shapes from 1024^3 to 1800^3 swept in benchmarks/TUNING.md:
// 1111 x 1333 x 1777 (B's rows unaligned: the element fill, K steps dealt), 1600 x 1200 x 1400
// (130 tiles of 128 x 128, under a wave) and 1750^3 (196 tiles of 128 x 128 dealt); and
// 2047^3, whose last tile row and column miss one row and column (every tile of a wave waits
// for the ragged ones: benchmarks/TUNING.md, "Ragged tiles").
constexpr GemmSize gemm_sizes[] = {
    {512, 512, 512},    {1024, 1024, 1024}, {2048, 2048, 2048}, {4096, 4096, 4096}, {8192, 8192, 8192},
    {64, 8192, 8192},   {128, 8192, 8192},  {8192, 8192, 64},   {1000, 999, 1001},  {4097, 4095, 4093},
    {1536, 1536, 1536}, {3072, 3072, 3072}, {1025, 1025, 1025}, {1031, 1029, 1027}, {1100, 1300, 1500},
    {1200, 1200, 1200}, {1111, 1333, 1777}, {1600, 1200, 1400}, {1750, 1750, 1750}, {2047, 2047, 2047},
};
// Elements of the largest operand or result above.
constexpr std::size_t gemm_max_elems = std::size_t{8192} * 8192;

// Shapes of the double rows.
constexpr GemmSize gemm_f64_sizes[] = {{2048, 2048, 2048}, {4096, 4096, 4096}};
constexpr std::size_t gemm_f64_max_elems = std::size_t{4096} * 4096;

// Shapes of the 16-bit rows (their operands: 8192 x 8192 of each type, gemm_max_elems).
// 3072^3: 288 tiles of 128 x 256 on 132 SMs, a last wave of 24 (split in K by the launcher);
// 1024^3: 32 such tiles, so the launcher takes 128 narrow ones of 128 x 64.
constexpr GemmSize gemm_16bit_sizes[] = {{1024, 1024, 1024}, {2048, 2048, 2048}, {3072, 3072, 3072}, {4096, 4096, 4096},
                                         {8192, 8192, 8192}, {128, 8192, 8192},  {1000, 999, 1001}};

// The operand types with a float C: __half and __nv_bfloat16.
template <class T>
inline constexpr bool is_16bit = tilecraft::is_gemm_16bit_v<T>;
// The type of C (and of cuBLAS's reference) for operands of type T: float for the 16-bit
// types, T otherwise.
template <class T>
using GemmOut = tilecraft::gemm_output_t<T>;
// The benchmark family of operand type T.
template <class T>
std::string gemm_family() {
  if constexpr (std::is_same_v<T, float>) return "gemm_f32";
  if constexpr (std::is_same_v<T, double>) return "gemm_f64";
  if constexpr (std::is_same_v<T, __half>) return "gemm_f16";
  return "gemm_bf16";
}
// A GEMM run on operands of type T: run(s, a, b, c, stream).
template <class T>
using GemmRun = void (*)(const GemmSize&, const T*, const T*, GemmOut<T>*, cudaStream_t);

// The unsigned type of T's bits: non-negative floats and doubles order like their bits.
template <class T>
using Bits = std::conditional_t<std::is_same_v<T, float>, unsigned, unsigned long long>;

// out[0] = max |c - ref| (+inf for a NaN: an element never written), out[1] = max |ref|, as
// the bits of R (the reference's type: C's own, or double for err_fp64; every difference taken in
// R); out must start at zero.
template <class T, class R>
__global__ void max_errors(const T* c, const R* ref, std::size_t n, Bits<R>* out) {
  constexpr R largest = std::is_same_v<R, float> ? R(3.0e38f) : R(1.7e308);  // below the maximum, above any error
  R err = 0, mag = 0;
  for (std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x; i < n;
       i += std::size_t{gridDim.x} * blockDim.x) {
    const R d = fabs(static_cast<R>(c[i]) - ref[i]);
    err = fmax(err, d <= largest ? d : R(INFINITY));
    mag = fmax(mag, fabs(ref[i]));
  }
  for (int o = 16; o > 0; o /= 2) {
    err = fmax(err, __shfl_xor_sync(0xffffffffu, err, o));
    mag = fmax(mag, __shfl_xor_sync(0xffffffffu, mag, o));
  }
  if (threadIdx.x % 32 == 0) {
    if constexpr (std::is_same_v<R, float>) {
      atomicMax(&out[0], __float_as_uint(err));
      atomicMax(&out[1], __float_as_uint(mag));
    } else {
      atomicMax(&out[0], static_cast<unsigned long long>(__double_as_longlong(err)));
      atomicMax(&out[1], static_cast<unsigned long long>(__double_as_longlong(mag)));
    }
  }
}

// out[i] = in[i] as a double (exact for float, __half and __nv_bfloat16).
template <class T>
__global__ void widen_to_double(const T* in, double* out, std::size_t n) {
  for (std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x; i < n;
       i += std::size_t{gridDim.x} * blockDim.x) {
    if constexpr (std::is_same_v<T, float>) {
      out[i] = in[i];
    } else {
      out[i] = static_cast<double>(static_cast<float>(in[i]));
    }
  }
}

//! The operands every shape of operand type T shares, the result and cuBLAS's reference
//! result (both GemmOut<T>): 8192 x 8192 floats, __half or __nv_bfloat16 (float results), or
//! 4096 x 4096 doubles.
template <class T>
struct GemmData {
  using Out = GemmOut<T>;
  static constexpr std::size_t elems = std::is_same_v<T, double> ? gemm_f64_max_elems : gemm_max_elems;
  DeviceMemory a{elems * sizeof(T)}, b{elems * sizeof(T)};
  DeviceMemory c{elems * sizeof(Out)}, ref{elems * sizeof(Out)};
  DeviceMemory errors{2 * sizeof(Bits<Out>)};
  GemmData() {
    fill_random(a.as<T>(), elems, -1.0, 1.0, 1);
    fill_random(b.as<T>(), elems, -1.0, 1.0, 2);
  }
};
// Made on first use: a run filtered to one family allocates only its buffers.
template <class T>
GemmData<T>& gemm_data() {
  static const auto data = std::make_unique<GemmData<T>>();
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

//! The FP64 product of one shape's operands (C64 of err_fp64): A and B widened to double and
//! multiplied by cublasDgemm, kept for the rows that follow on the same operand type and shape
//! (each shape's rows are registered one after another), made again when either changes.
struct Fp64Reference {
  DeviceMemory a{gemm_max_elems * sizeof(double)}, b{gemm_max_elems * sizeof(double)};
  DeviceMemory c{gemm_max_elems * sizeof(double)};
  DeviceMemory errors{2 * sizeof(unsigned long long)};
  std::string key;  // "<family of the operand type>/<MxNxK>" of what c holds

  //! C64 of shape s on A and B (operand type T), unless c holds it already.
  template <class T>
  void make(const GemmSize& s, const T* a_in, const T* b_in) {
    const std::string want = gemm_family<T>() + "/" + s.name();
    if (want == key) return;
    key.clear();
    const auto mk = static_cast<std::size_t>(s.m * s.k), kn = static_cast<std::size_t>(s.k * s.n);
    widen_to_double<<<1024, 256>>>(a_in, a.as<double>(), mk);
    TILECRAFT_BENCH_CHECK(cudaGetLastError());
    widen_to_double<<<1024, 256>>>(b_in, b.as<double>(), kn);
    TILECRAFT_BENCH_CHECK(cudaGetLastError());
    const double one = 1, zero = 0;
    const int m = static_cast<int>(s.m), n = static_cast<int>(s.n), k = static_cast<int>(s.k);
    TILECRAFT_CUBLAS_CHECK(cublasSetStream(cublas(), nullptr));
    TILECRAFT_CUBLAS_CHECK(cublasDgemm(cublas(), CUBLAS_OP_N, CUBLAS_OP_N, n, m, k, &one, b.as<double>(), n,
                                       a.as<double>(), k, &zero, c.as<double>(), n));
    TILECRAFT_BENCH_CHECK(cudaDeviceSynchronize());
    key = want;
  }

  //! max |c - C64| / max |C64| over the shape's m x n results.
  template <class Out>
  double relative_error(const GemmSize& s, const Out* c_out) {
    TILECRAFT_BENCH_CHECK(cudaMemset(errors.as<unsigned long long>(), 0, 2 * sizeof(unsigned long long)));
    max_errors<<<1024, 256>>>(c_out, c.as<double>(), static_cast<std::size_t>(s.m * s.n),
                              errors.as<unsigned long long>());
    TILECRAFT_BENCH_CHECK(cudaGetLastError());
    unsigned long long bits[2] = {};
    TILECRAFT_BENCH_CHECK(cudaMemcpy(bits, errors.as<unsigned long long>(), sizeof bits, cudaMemcpyDeviceToHost));
    double err = 0, mag = 0;
    std::memcpy(&err, &bits[0], sizeof err);
    std::memcpy(&mag, &bits[1], sizeof mag);
    return mag > 0 ? err / mag : err;
  }
};
// Made on first use (1.5 GiB), by the first row of float or 16-bit operands.
Fp64Reference& fp64_reference() {
  static const auto reference = std::make_unique<Fp64Reference>();
  return *reference;
}

//! A second handle, in the default math mode (tensor cores allowed): cuBLAS on TF32 and on
//! 16-bit operands. Never destroyed (see cublas()).
cublasHandle_t cublas_default_math() {
  static const cublasHandle_t handle = [] {
    cublasHandle_t h = nullptr;
    TILECRAFT_CUBLAS_CHECK(cublasCreate(&h));
    return h;
  }();
  return handle;
}

// Row-major C = A B with column-major cuBLAS: C^T (n x m, ld n) = B^T (n x k, ld n) A^T (k x m, ld k).
// cublasSgemm for float, cublasDgemm for double (DMMA tensor cores on sm_80+), both in the
// pedantic handle; cublasGemmEx for __half and __nv_bfloat16 (FP32 compute and output, in the
// default math mode).
template <class T>
void cublas_gemm(const GemmSize& s, const T* a, const T* b, GemmOut<T>* c, cudaStream_t stream) {
  const GemmOut<T> one = 1, zero = 0;
  const int m = static_cast<int>(s.m), n = static_cast<int>(s.n), k = static_cast<int>(s.k);
  if constexpr (is_16bit<T>) {
    constexpr cudaDataType_t type = std::is_same_v<T, __half> ? CUDA_R_16F : CUDA_R_16BF;
    TILECRAFT_CUBLAS_CHECK(cublasSetStream(cublas_default_math(), stream));
    TILECRAFT_CUBLAS_CHECK(cublasGemmEx(cublas_default_math(), CUBLAS_OP_N, CUBLAS_OP_N, n, m, k, &one, b, type, n, a,
                                        type, k, &zero, c, CUDA_R_32F, n, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
  } else {
    TILECRAFT_CUBLAS_CHECK(cublasSetStream(cublas(), stream));
    if constexpr (std::is_same_v<T, float>) {
      TILECRAFT_CUBLAS_CHECK(cublasSgemm(cublas(), CUBLAS_OP_N, CUBLAS_OP_N, n, m, k, &one, b, n, a, k, &zero, c, n));
    } else {
      TILECRAFT_CUBLAS_CHECK(cublasDgemm(cublas(), CUBLAS_OP_N, CUBLAS_OP_N, n, m, k, &one, b, n, a, k, &zero, c, n));
    }
  }
}

template <class T, class Policy = void>
void tilecraft_gemm(const GemmSize& s, const T* a, const T* b, T* c, cudaStream_t stream) {
  using tilecraft::Op;
  using tilecraft::Order;
  TILECRAFT_BENCH_CHECK(tilecraft::gemm<Policy>(Order::row_major, Op::none, Op::none, s.m, s.n, s.k, T(1), a, s.k, b,
                                                s.n, T(0), c, s.n, stream));
}

//! Times run(a, b, c, stream) on `s` with the harness (peer: remember the time; otherwise
//! report the ratio to cuBLAS's), then checks the result of the last run against cuBLAS
//! (cublas_gemm<T>): max_rel_err above `limit` is an error. A and B hold T, C GemmOut<T>.
template <class T, class Run>
void gemm_bench(benchmark::State& state, const std::string& family, const GemmSize& s, bool peer, Run run,
                double limit) {
  using Out = GemmOut<T>;
  GemmData<T>& d = gemm_data<T>();
  const T* a = d.a.template as<T>();
  const T* b = d.b.template as<T>();
  Out* c = d.c.template as<Out>();
  const std::size_t elems = static_cast<std::size_t>(s.m * s.n);
  TILECRAFT_BENCH_CHECK(cudaMemset(c, 0xff, elems * sizeof(Out)));  // NaN where nothing is written
  const std::string key = family + "/" + s.name();
  // The FP64 product (a cublasDgemm, tens of milliseconds at 8192^3) before the timed runs, so
  // that a shape's peer and product still run back to back, as before it came.
  if constexpr (!std::is_same_v<T, double>) fp64_reference().make<T>(s, a, b);
  time_it(
      state, [&](cudaStream_t stream) { run(s, a, b, c, stream); }, Measure{0, s.flops()}, peer ? key : std::string{},
      peer ? std::string{} : key);
  if constexpr (!std::is_same_v<T, double>) {
    state.counters["err_fp64"] = benchmark::Counter(fp64_reference().relative_error(s, c));
  }
  if (peer) return;
  Out* ref = d.ref.template as<Out>();
  Bits<Out>* errors = d.errors.template as<Bits<Out>>();
  cublas_gemm<T>(s, a, b, ref, nullptr);
  TILECRAFT_BENCH_CHECK(cudaMemset(errors, 0, 2 * sizeof(Bits<Out>)));
  max_errors<<<1024, 256>>>(c, ref, elems, errors);
  TILECRAFT_BENCH_CHECK(cudaGetLastError());
  Bits<Out> bits[2] = {};
  TILECRAFT_BENCH_CHECK(cudaMemcpy(bits, errors, sizeof bits, cudaMemcpyDeviceToHost));
  Out err = 0, mag = 0;
  std::memcpy(&err, &bits[0], sizeof err);
  std::memcpy(&mag, &bits[1], sizeof mag);
  const double rel = mag > Out(0) ? static_cast<double>(err / mag) : static_cast<double>(err);
  state.counters["max_rel_err"] = benchmark::Counter(rel);
  if (!(rel <= limit)) state.SkipWithError("the result differs from cuBLAS's (max_rel_err above the limit)");
}

// Registers family/impl/size for operands of type T; max_rel_err above `limit` (default: 1e-4
// for float, 1e-10 for double, 1e-3 for the 16-bit types) is an error.
template <class T>
void register_gemm(const std::string& impl, const GemmSize& s, bool peer, GemmRun<T> run,
                   const std::string& family = gemm_family<T>(),
                   double limit = std::is_same_v<T, float>    ? 1e-4
                                  : std::is_same_v<T, double> ? 1e-10
                                                              : 1e-3) {
  benchmark::RegisterBenchmark(
      (family + "/" + impl + "/" + s.name()).c_str(),
      [s, peer, run, family, limit](benchmark::State& state) { gemm_bench<T>(state, family, s, peer, run, limit); })
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

// ---- tensor cores ----------------------------------------------------------------------------
// gemm_tf32 and gemm_f32x3: tilecraft::gemm<GemmMath::tf32 / tf32x3> (rows tilecraft) and
// tiled_gemm with GemmMath::tf32 / tf32x3 in a plain kernel (one tile per block, dynamic shared
// memory: rows tiled_gemm_tensor), against cuBLAS in FP32 (pedantic: the
// peer named cublas) and in TF32
// (CUBLAS_COMPUTE_32F_FAST_TF32: cublas_tf32), on the same row-major data. max_rel_err is
// against cuBLAS FP32: above 1e-2 (TF32) or 1e-4 (TF32x3) is an error.
// The configurations measured best so far (benchmarks/TUNING.md, "Tensor cores"): TF32, 4 warps
// of 64 x 64 (128 accumulators per thread), 4 stages; TF32x3, whose split fragments need more
// registers, a 64 x 128 tile of 4 warps of 32 x 64 with a K step of 32 in 3 stages.
template <tilecraft::GemmMath Math>
using BenchTensorGemm =
    std::conditional_t<Math == tilecraft::GemmMath::tf32,
                       tilecraft::TiledGemm<128, 128, tilecraft::RegBlock<16, 8>, 16, 4, 4, float, Math>,
                       tilecraft::TiledGemm<64, 128, tilecraft::RegBlock<8, 8>, 32, 4, 3, float, Math>>;

// gemm_bf16 and gemm_f16: 4 warps of 64 x 64, a K step of 32 in 3 stages (benchmarks/TUNING.md,
// "Tensor cores for 16-bit operands").
template <class T>
using BenchGemm16 = tilecraft::TiledGemm<128, 128, tilecraft::RegBlock<16, 8>, 32, 4, 3, T>;

// One tile of C per block; A and B hold G::element_type, C G::output_type (float for every
// configuration here).
template <class G, int MinBlocks>
__global__ void __launch_bounds__(G::threads, MinBlocks)
    tensor_gemm_kernel(tilecraft::MatrixRef<const typename G::element_type> a,
                       tilecraft::MatrixRef<const typename G::element_type> b,
                       tilecraft::MatrixRef<typename G::output_type> c) {
  extern __shared__ __align__(16) unsigned char tensor_smem[];
  auto& storage = *reinterpret_cast<typename G::TempStorage*>(tensor_smem);
  tilecraft::tiled_gemm(storage, a, b, c, blockIdx.y * std::int64_t{G::shape::tile_m},
                        blockIdx.x * std::int64_t{G::shape::tile_n});
}

template <class G, int MinBlocks = 1>
void tensor_gemm_with(const GemmSize& s, const typename G::element_type* a, const typename G::element_type* b,
                      typename G::output_type* c, cudaStream_t stream) {
  using T = typename G::element_type;
  using Out = typename G::output_type;
  static const bool opted_in = [] {
    TILECRAFT_BENCH_CHECK(tilecraft::opt_in_dynamic_smem(tensor_gemm_kernel<G, MinBlocks>, G::smem_bytes));
    return true;
  }();
  (void)opted_in;
  constexpr int tm = G::shape::tile_m, tn = G::shape::tile_n;
  const dim3 grid(static_cast<unsigned>((s.n + tn - 1) / tn), static_cast<unsigned>((s.m + tm - 1) / tm));
  tensor_gemm_kernel<G, MinBlocks><<<grid, G::threads, G::smem_bytes, stream>>>(
      tilecraft::MatrixRef<const T>{a, s.m, s.k, s.k}, tilecraft::MatrixRef<const T>{b, s.k, s.n, s.n},
      tilecraft::MatrixRef<Out>{c, s.m, s.n, s.n});
  TILECRAFT_BENCH_CHECK(cudaGetLastError());
}
template <tilecraft::GemmMath Math>
void tilecraft_tensor_gemm(const GemmSize& s, const float* a, const float* b, float* c, cudaStream_t stream) {
  tensor_gemm_with<BenchTensorGemm<Math>>(s, a, b, c, stream);
}
// gemm_tf32 / gemm_f32x3: the device-level tilecraft::gemm<Math> on float operands, row-major.
template <tilecraft::GemmMath Math>
void tilecraft_math_gemm(const GemmSize& s, const float* a, const float* b, float* c, cudaStream_t stream) {
  TILECRAFT_BENCH_CHECK(tilecraft::gemm<Math>(tilecraft::Order::row_major, tilecraft::Op::none, tilecraft::Op::none,
                                              s.m, s.n, s.k, 1.0f, a, s.k, b, s.n, 0.0f, c, s.n, stream));
}
// gemm_bf16 / gemm_f16: tiled_gemm (GemmMath::mma16) on T operands, float C.
template <class T>
void tiled_16bit_gemm(const GemmSize& s, const T* a, const T* b, float* c, cudaStream_t stream) {
  tensor_gemm_with<BenchGemm16<T>>(s, a, b, c, stream);
}
// gemm_bf16 / gemm_f16: the device-level tilecraft::gemm on T operands, float C, row-major.
template <class T>
void tilecraft_16bit_gemm(const GemmSize& s, const T* a, const T* b, float* c, cudaStream_t stream) {
  TILECRAFT_BENCH_CHECK(tilecraft::gemm(tilecraft::Order::row_major, tilecraft::Op::none, tilecraft::Op::none, s.m, s.n,
                                        s.k, 1.0f, a, s.k, b, s.n, 0.0f, c, s.n, stream));
}

// cuBLAS on the TF32 tensor cores (the handle in the default math mode).
void cublas_tf32_gemm(const GemmSize& s, const float* a, const float* b, float* c, cudaStream_t stream) {
  const cublasHandle_t handle = cublas_default_math();
  const float one = 1, zero = 0;
  const int m = static_cast<int>(s.m), n = static_cast<int>(s.n), k = static_cast<int>(s.k);
  TILECRAFT_CUBLAS_CHECK(cublasSetStream(handle, stream));
  TILECRAFT_CUBLAS_CHECK(cublasGemmEx(handle, CUBLAS_OP_N, CUBLAS_OP_N, n, m, k, &one, b, CUDA_R_32F, n, a, CUDA_R_32F,
                                      k, &zero, c, CUDA_R_32F, n, CUBLAS_COMPUTE_32F_FAST_TF32, CUBLAS_GEMM_DEFAULT));
}

// The shapes of the tensor-core rows.
constexpr GemmSize tensor_sizes[] = {
    {1024, 1024, 1024}, {2048, 2048, 2048}, {3072, 3072, 3072}, {4096, 4096, 4096},
    {8192, 8192, 8192}, {128, 8192, 8192},  {1000, 999, 1001},
};

// The default run: per shape, cuBLAS first (the others report their ratio to it), then
// tilecraft, then the course's kernels at 2048^3 and 4096^3 (at 8192^3 they would take seconds);
// then the double rows (see the file comment for the name tilecraft_simt), the TF32 and TF32x3
// rows, and the 16-bit rows (BF16, then FP16).
const bool gemm_registered = [] {
  for (const GemmSize& s : gemm_sizes) {
    register_gemm<float>("cublas", s, true, cublas_gemm<float>);
    register_gemm<float>("tilecraft", s, false, tilecraft_gemm<float>);
    if (course::gemm_supports(s.m, s.n, s.k) && (s.n == 2048 || s.n == 4096)) {
      register_gemm<float>("course_tiled", s, false, course_tiled);
      register_gemm<float>("course_tiled_1x2", s, false, course_tiled_1x2);
    }
  }
  for (const GemmSize& s : gemm_f64_sizes) {
    register_gemm<double>("cublas", s, true, cublas_gemm<double>);
    register_gemm<double>("tilecraft_simt", s, false, tilecraft_gemm<double>);
  }
  using tilecraft::GemmMath;
  for (const char* family : {"gemm_tf32", "gemm_f32x3"}) {
    const bool x3 = std::string(family) == "gemm_f32x3";
    for (const GemmSize& s : tensor_sizes) {
      register_gemm<float>("cublas", s, true, cublas_gemm<float>, family);
      register_gemm<float>("cublas_tf32", s, false, cublas_tf32_gemm, family, 1e-2);
      register_gemm<float>("tilecraft", s, false,
                           x3 ? tilecraft_math_gemm<GemmMath::tf32x3> : tilecraft_math_gemm<GemmMath::tf32>, family,
                           x3 ? 1e-4 : 1e-2);
      register_gemm<float>("tiled_gemm_tensor", s, false,
                           x3 ? tilecraft_tensor_gemm<GemmMath::tf32x3> : tilecraft_tensor_gemm<GemmMath::tf32>, family,
                           x3 ? 1e-4 : 1e-2);
    }
  }
  for (const GemmSize& s : gemm_16bit_sizes) {
    register_gemm<__nv_bfloat16>("cublas", s, true, cublas_gemm<__nv_bfloat16>);
    register_gemm<__nv_bfloat16>("tilecraft", s, false, tilecraft_16bit_gemm<__nv_bfloat16>);
    register_gemm<__nv_bfloat16>("tiled_gemm_mma16", s, false, tiled_16bit_gemm<__nv_bfloat16>);
  }
  for (const GemmSize& s : gemm_16bit_sizes) {
    register_gemm<__half>("cublas", s, true, cublas_gemm<__half>);
    register_gemm<__half>("tilecraft", s, false, tilecraft_16bit_gemm<__half>);
    register_gemm<__half>("tiled_gemm_mma16", s, false, tiled_16bit_gemm<__half>);
  }
  return true;
}();

// Configurations to tune (tilecraft::GemmPolicy), on every shape, named
// gemm_f32/tc_<TM>x<TN>x<TK>_rb<RM>x<RN>_l<LanesM>_s<Stages>_b<MinBlocksPerSm>_g<GroupM>/<MxNxK>.
// Compiled only with -DTILECRAFT_BENCH_VARIANTS=ON (CMake; they double the binary's build
// time) and registered only when the environment variable TILECRAFT_BENCH_VARIANTS is set
// (benchmarks/experiment.sh does both), so the default run stays the product and its peers;
// they report the ratio to cuBLAS when its
// benchmark of the same shape ran first, e.g.
//   benchmarks/experiment.sh OUT 'gemm_f32/(cublas|tilecraft|tc_).*/4096x4096x4096/'
//       'gemm_f32/tilecraft/4096x4096x4096/' 'gemm_kernel|sgemm'   (one command line)
// benchmarks/TUNING.md records what each measured.
#if defined(TILECRAFT_BENCH_VARIANTS_BUILT)
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
  using T = typename Policy::element_type;
  if constexpr (std::is_same_v<T, float>) {
    for (const GemmSize& s : gemm_sizes) register_gemm<T>(policy_name<Policy>(), s, false, tilecraft_gemm<T, Policy>);
  } else {
    for (const GemmSize& s : gemm_f64_sizes)
      register_gemm<T>(policy_name<Policy>(), s, false, tilecraft_gemm<T, Policy>);
  }
}
const bool gemm_variants_registered = [] {
  if (std::getenv("TILECRAFT_BENCH_VARIANTS") == nullptr) return false;
  using tilecraft::GemmPolicy;
  using tilecraft::RegBlock;
  register_gemm_variant<tilecraft::GemmPolicyLarge>();  // each default on every shape
  register_gemm_variant<tilecraft::GemmPolicySmall>();
  register_gemm_variant<GemmPolicy<128, 128, RegBlock<8, 8>, 32, 4, 3, 2, 8>>();  // K step 32, 3 stages (99 KiB):
                                                                                  // GemmPolicyLargeVector
  register_gemm_variant<GemmPolicy<128, 128, RegBlock<8, 8>, 8, 4, 4, 2, 8>>();   // 4 stages
  register_gemm_variant<GemmPolicy<128, 128, RegBlock<8, 8>, 8, 8, 3, 2, 8>>();   // 8 x 4 lane grid (64 x 32 warps)
  register_gemm_variant<tilecraft::GemmPolicyHuge>();  // cuBLAS's tile (8 warps of 64 x 64), K step 16
  register_gemm_variant<GemmPolicy<256, 128, RegBlock<16, 8>, 8, 4, 3, 1, 8>>();   // the same, K step 8
  register_gemm_variant<GemmPolicy<256, 128, RegBlock<16, 8>, 16, 4, 4, 1, 8>>();  // the same, 4 stages
  register_gemm_variant<GemmPolicy<128, 256, RegBlock<8, 16>, 8, 4, 3, 1, 8>>();
  register_gemm_variant<GemmPolicy<128, 64, RegBlock<8, 4>, 8, 4, 3, 2, 8>>();
  register_gemm_variant<GemmPolicy<64, 128, RegBlock<4, 8>, 8, 4, 3, 2, 8>>();
  register_gemm_variant<GemmPolicy<64, 64, RegBlock<4, 4>, 8, 4, 3, 3, 8>>();   // 256 threads, 16 accumulators each
  register_gemm_variant<GemmPolicy<64, 64, RegBlock<4, 4>, 16, 4, 3, 3, 8>>();  // the same, K step 16
  register_gemm_variant<GemmPolicy<64, 32, RegBlock<4, 4>, 16, 4, 3, 6, 8>>();  // 128 threads: more blocks per SM
  // Double (gemm_f64/tc_*): each default, and 8 x 8 doubles per thread (128 accumulator
  // registers, 224-250 in all at 1 block per SM, no spills on sm_75/80/90): the fragment loads'
  // shared-memory traffic per DFMA halves against RegBlock<4, 8>.
  register_gemm_variant<tilecraft::GemmPolicyLargeF64>();
  register_gemm_variant<tilecraft::GemmPolicyMediumF64>();
  register_gemm_variant<GemmPolicy<128, 128, RegBlock<8, 8>, 8, 4, 2, 1, 8, 16, double>>();
  register_gemm_variant<GemmPolicy<128, 128, RegBlock<8, 8>, 8, 4, 3, 1, 8, 16, double>>();
  register_gemm_variant<GemmPolicy<128, 64, RegBlock<4, 8>, 16, 4, 2, 2, 8, 16, double>>();  // K step 16
  register_gemm_variant<GemmPolicy<128, 64, RegBlock<4, 8>, 8, 4, 4, 2, 8, 16, double>>();   // 4 stages
  return true;
}();
#else
const bool gemm_variants_registered = [] {
  if (std::getenv("TILECRAFT_BENCH_VARIANTS") != nullptr) {
    std::fprintf(stderr,
                 "TILECRAFT_BENCH_VARIANTS: the GEMM variants were not built (configure with "
                 "-DTILECRAFT_BENCH_VARIANTS=ON)\n");
  }
  return false;
}();
#endif  // TILECRAFT_BENCH_VARIANTS_BUILT

}  // namespace
