// tilecraft::gemm<GemmMath::tf32 / tf32x3> on float operands, with the float gemm's BLAS semantics:
//   - exact products: operands (integers in [-8, 8]) / 8 (exact in TF32, so both maths must give
//     exact products), C multiples of 1/8, alpha and beta from {1, 2, -0.5, 0}: every partial sum
//     is exact in FP32 in any order, so C must equal the host's double result. Odd shapes (K = 0,
//     K = 1, partial 128 x 256 x 32 tiles on every side), both orders, every op, leading dimensions
//     at the minimum, +4 and +3 (copied into aligned rows), bases one element off 16-byte
//     alignment. A and B are NaN outside the operands; C is NaN where beta = 0; the C buffer
//     outside C must stay as it was;
//   - random reals in [-1, 1) against a double host product, within the documented bound times 2:
//     TF32 (2^-9 + (K + 2) 2^-24) M, TF32x3 (2^-20 + (3 K + 2) 2^-24) M, with M = |alpha| sum
//     |a||b| + |beta||c|; the worst error is reported beside FP32 SIMT gemm's and cuBLAS's in the
//     same math on the same data (TF32: CUBLAS_COMPUTE_32F_FAST_TF32; TF32x3: cuBLAS FP32,
//     CUBLAS_PEDANTIC_MATH): TF32x3's must be no larger than FP32 SIMT gemm's and within 1.5
//     times cuBLAS FP32's, TF32's within 5 times cuBLAS TF32's (the wgmma path reads its
//     operands truncated to TF32, cuBLAS rounds them: 2.4-2.8 times its error in the benchmarks);
//   - rejected calls (cudaErrorInvalidValue, nothing launched, C untouched);
//   - a caller's kernel before the call that lets its dependents launch early: the launcher's
//     kernels read what it wrote (C = beta C with nothing copied, operands as stored or copied);
//   - the wgmma path must run where the build defines TILECRAFT_TEST_EXPECT_WGMMA and the GPU is cc 9.0.
// Inputs come from the printed seed (TILECRAFT_TEST_SEED replays it) and each case's salt.
// TILECRAFT_TEST_HUGE=0 (the sanitizer runs) takes an eighth of the exact cases and one smaller
// random product.
#include <cublas_v2.h>
#include <doctest/doctest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <limits>
#include <map>
#include <string>
#include <vector>

#include <tilecraft/device/gemm.cuh>

#include "gemm_problem.cuh"
#include "test_util.cuh"

// The launcher's kernels compile in tests/support/gemm_instance_tf32.cu (tilecraft_gemm_instances).
TILECRAFT_GEMM_TF32_INSTANCE(extern, tilecraft::GemmMath::tf32);
TILECRAFT_GEMM_TF32_INSTANCE(extern, tilecraft::GemmMath::tf32x3);

using tilecraft::GemmMath;
using tilecraft::Op;
using tilecraft::Order;
using tilecraft::test::DeviceBuffer;
using tilecraft::test::GemmLayout;

namespace {

// What a case runs: gemm<Math>(), or (Wgmma) the launcher with the wgmma kernel for any number
// of tiles (where the device's code has it: gemm() takes mma.sync for products of few tiles),
// and (Split) the last wave's K in slices (1) or stream-K (2), wherever they may run (slices
// and shares of whole 32-element K steps, at least one; partial sums that cost the plan
// nothing): planned for Sms SMs (0: the device's), every tile's K split where C has fewer tiles
// than SMs, else the last wave's (slices) or all but the last two waves whole (stream-K; Sms 4:
// 300 x 520 x 65 has 9 tiles of 128 x 256 and 3 K steps, 4 whole and 5 in shares of 3 or 4
// steps; 130 x 260 x 70 has 6 of TF32x3's 128 x 128, all in shares of 4 or 5). Width: TF32's
// tiles as chosen by shape (0: 64 x 128 for every product here planned for the device's SMs),
// or forced to 128 x Width (64: 64 x 128). TF32 computes a product whose A is K-contiguous and
// B N-contiguous, both aligned, as C^T = B^T A^T with B^T from registers (stored transposed:
// whole tiles, slices and stream-K shares alike), and one whose A is M-contiguous and aligned
// (300 and 8 rows: row-major op(A) = A^T) with A from registers, C stored as it is (B transposed
// first where it is N-contiguous); unaligned layouts take the other path, the operands
// transposed first. SmemLimit > 0: the mma.sync path alone, as on a GPU whose blocks may opt in
// to no more shared memory than that (65536: sm_75's, where it runs one stage fewer).
// WorkspaceLimit >= 0: workspace requests above it refused as an exhausted pool refuses them
// (0: operands that need copying or splitting run on mma.sync as they are; split or stream-K K
// on operands read as stored runs every tile whole).
template <GemmMath Math, bool Wgmma = false, int Split = 0, int Sms = 0, int Width = 0, int SmemLimit = 0,
          std::int64_t WorkspaceLimit = -1>
struct Runner {
  static constexpr GemmMath math = Math;
  static constexpr bool wgmma = Wgmma;
  static tilecraft::detail::GemmTensorTunables tunables() {
    tilecraft::detail::GemmTensorTunables t;
    t.min_wave_fill = 0.0;
    if (Split != 0) {
      t.split = {32, 0.0, std::int64_t{64} << 20};
      t.stream_k = Split == 2 ? 1 : -1;
      t.fixup = 0.0;
    }
    // The forced splits read K-contiguous rows 16 bytes off a 32-byte boundary as stored; the
    // other runners copy them into aligned rows first, at every size.
    t.pack_unaligned_min = Split == 1 ? -1 : 0;
    t.sms = Sms;
    t.tile_width = Width;
    t.workspace_limit = WorkspaceLimit;
    if (SmemLimit > 0) {
      t.min_wave_fill = 1e30;  // never the wgmma kernel
      t.fallback_smem_limit = SmemLimit;
    }
    return t;
  }
};
using Tf32 = Runner<GemmMath::tf32>;
using Tf32x3 = Runner<GemmMath::tf32x3>;
using Tf32Wgmma = Runner<GemmMath::tf32, true>;
using Tf32x3Wgmma = Runner<GemmMath::tf32x3, true>;
using Tf32Split = Runner<GemmMath::tf32, true, 1, 0, 128>;
using Tf32x3Split = Runner<GemmMath::tf32x3, true, 1>;
using Tf32StreamK = Runner<GemmMath::tf32, true, 2, 4, 256>;
using Tf32Split192 = Runner<GemmMath::tf32, true, 1, 0, 192>;
using Tf32StreamK64 = Runner<GemmMath::tf32, true, 2, 4, 64>;
using Tf32x3StreamK = Runner<GemmMath::tf32x3, true, 2, 4>;
using Tf32x3StreamKAll = Runner<GemmMath::tf32x3, true, 2>;
using Tf32Short = Runner<GemmMath::tf32, true, 0, 0, 0, 65536>;
using Tf32x3Short = Runner<GemmMath::tf32x3, true, 0, 0, 0, 65536>;
using Tf32StreamKNoWorkspace = Runner<GemmMath::tf32, true, 2, 4, 256, 0, 0>;
using Tf32SplitNoWorkspace = Runner<GemmMath::tf32, true, 1, 0, 128, 0, 0>;
using Tf32x3StreamKNoWorkspace = Runner<GemmMath::tf32x3, true, 2, 4, 0, 0, 0>;
// TF32x3's split operands (505 KB in light runs) within the limit, stream-K's partial sums (64
// KiB for each of its blocks) past it: every tile whole on wgmma (light runs; full runs' operands
// are past it too: mma.sync).
using Tf32x3StreamKNoPartials = Runner<GemmMath::tf32x3, true, 2, 0, 0, 0, std::int64_t{512} << 10>;

constexpr float nan_f = std::numeric_limits<float>::quiet_NaN();

// Minimum and aligned where the shape allows; +4; +3 (odd rows: copied into aligned ones); A one
// element off; B off and C off with odd ldc; a mix.
constexpr GemmLayout layouts[] = {{0, 0, 0, 0, 0, 0}, {4, 4, 4, 0, 0, 0}, {3, 3, 3, 0, 0, 0},
                                  {0, 0, 0, 1, 0, 0}, {4, 0, 3, 0, 1, 1}, {3, 4, 0, 1, 1, 0}};
constexpr int layout_count = static_cast<int>(sizeof(layouts) / sizeof(layouts[0]));

using Problem = tilecraft::test::GemmProblem;
constexpr const char* math_name(GemmMath math) {
  return math == GemmMath::tf32 ? "tf32" : (math == GemmMath::tf32x3 ? "tf32x3" : "simt");
}

// Host buffers: A, B (NaN outside the operands), C; and the double reference with its bound.
struct Data {
  std::vector<float> a, b, c0;
};

template <class Draw>
Data make_data(const Problem& p, Draw&& draw) {
  Data d{std::vector<float>(p.size_a(), nan_f), std::vector<float>(p.size_b(), nan_f),
         std::vector<float>(p.size_c(), nan_f)};
  for (std::int64_t i = 0; i < p.m; ++i)
    for (std::int64_t q = 0; q < p.k; ++q) d.a[p.ia(i, q)] = draw();
  for (std::int64_t q = 0; q < p.k; ++q)
    for (std::int64_t j = 0; j < p.n; ++j) d.b[p.ib(q, j)] = draw();
  if (p.beta != 0.0f) {
    for (std::int64_t i = 0; i < p.m; ++i)
      for (std::int64_t j = 0; j < p.n; ++j) d.c0[p.ic(i, j)] = draw();
  }
  return d;
}

// want = alpha op(A) op(B) + beta C in double; mag = |alpha| sum |a||b| + |beta||c| (row-major m x n).
void reference(const Problem& p, const Data& d, std::vector<double>& want, std::vector<double>& mag) {
  const auto m = static_cast<std::size_t>(p.m), n = static_cast<std::size_t>(p.n), k = static_cast<std::size_t>(p.k);
  std::vector<double> at(m * k), bt(n * k);  // op(A) row-major, op(B)^T row-major
  for (std::size_t i = 0; i < m; ++i)
    for (std::size_t q = 0; q < k; ++q) at[i * k + q] = d.a[p.ia(std::int64_t(i), std::int64_t(q))];
  for (std::size_t j = 0; j < n; ++j)
    for (std::size_t q = 0; q < k; ++q) bt[j * k + q] = d.b[p.ib(std::int64_t(q), std::int64_t(j))];
  want.assign(m * n, 0.0);
  mag.assign(m * n, 0.0);
  for (std::size_t i = 0; i < m; ++i) {
    for (std::size_t j = 0; j < n; ++j) {
      double s = 0.0, sa = 0.0;
      for (std::size_t q = 0; q < k; ++q) {
        s += at[i * k + q] * bt[j * k + q];
        sa += std::abs(at[i * k + q] * bt[j * k + q]);
      }
      const double cv = p.beta != 0.0f ? double(d.c0[p.ic(std::int64_t(i), std::int64_t(j))]) : 0.0;
      want[i * n + j] = double(p.alpha) * s + double(p.beta) * cv;
      mag[i * n + j] = std::abs(double(p.alpha)) * sa + std::abs(double(p.beta) * cv);
    }
  }
}

template <class R>
std::vector<float> run_gemm(const Problem& p, const Data& d) {
  DeviceBuffer<float> a(d.a), b(d.b), c(d.c0);
  const tilecraft::test::Stream stream;
  cudaError_t status = cudaSuccess;
  if constexpr (R::wgmma) {
    status = tilecraft::detail::gemm_tf32_run<R::math>(p.order, p.op_a, p.op_b, p.m, p.n, p.k, p.alpha,
                                                       a.get() + p.l.off_a, p.lda(), b.get() + p.l.off_b, p.ldb(),
                                                       p.beta, c.get() + p.l.off_c, p.ldc(), stream, R::tunables());
  } else {
    status = tilecraft::gemm<R::math>(p.order, p.op_a, p.op_b, p.m, p.n, p.k, p.alpha, a.get() + p.l.off_a, p.lda(),
                                      b.get() + p.l.off_b, p.ldb(), p.beta, c.get() + p.l.off_c, p.ldc(), stream);
  }
  CHECK(status == cudaSuccess);
  stream.synchronize();
  tilecraft::test::sync_and_check();
  return c.download();
}

// C against want within bound (0: exact); the rest of the buffer bit for bit as it was. Returns
// the worst |error| / mag.
double check_c(const Problem& p, const std::vector<float>& got, const Data& d, const std::vector<double>& want,
               const std::vector<double>& mag, double rel_bound) {
  std::vector<char> inside(got.size(), 0);
  std::int64_t bad = 0;
  double worst = 0.0;
  std::string first;
  for (std::int64_t i = 0; i < p.m; ++i) {
    for (std::int64_t j = 0; j < p.n; ++j) {
      const std::size_t at = p.ic(i, j), r = static_cast<std::size_t>(i * p.n + j);
      inside[at] = 1;
      const double err = std::abs(double(got[at]) - want[r]);
      if (mag[r] > 0) worst = std::max(worst, err / mag[r]);
      const bool ok = rel_bound == 0.0 ? double(got[at]) == want[r] : err <= rel_bound * mag[r] + 1e-30;
      if (!ok && bad++ == 0) {
        char s[160];
        std::snprintf(s, sizeof s, "C(%lld, %lld) = %.9g, expected %.17g (bound %.3g)", static_cast<long long>(i),
                      static_cast<long long>(j), double(got[at]), want[r], rel_bound * mag[r]);
        first = s;
      }
    }
  }
  CHECK_MESSAGE(bad == 0, bad << " wrong elements; first: " << first);
  std::int64_t touched = 0;
  for (std::size_t x = 0; x < got.size(); ++x) {
    if (!inside[x] && std::memcmp(&got[x], &d.c0[x], sizeof(float)) != 0) ++touched;
  }
  CHECK_MESSAGE(touched == 0, touched << " elements outside C changed");
  return worst;
}

template <class R>
void check_exact(const Problem& p, std::uint64_t salt) {
  CAPTURE(p.str(math_name(R::math), salt));
  auto g = tilecraft::test::rng(salt);
  const Data d = make_data(p, [&] { return static_cast<float>(g.uniform_int(-8, 8)) / 8.0f; });
  std::vector<double> want, mag;
  reference(p, d, want, mag);
  check_c(p, run_gemm<R>(p, d), d, want, mag, 0.0);
}

// The random-reals case's operands, their double reference and FP32 SIMT gemm's worst error on
// them, made once a problem: every runner draws the same data for the same problem and salt, and
// the reference of a 1000^3 product takes about a second of a host core (17 runners x 4
// problems: most of this test's time before).
struct RealsCase {
  Data d;
  std::vector<double> want, mag;
  double simt = -1.0;         // FP32 SIMT's worst |error| / M (< 0: not run yet)
  double cublas_fp32 = -1.0;  // cuBLAS's in FP32 FMAs (CUBLAS_PEDANTIC_MATH)
  double cublas_tf32 = -1.0;  // cuBLAS's in TF32 (CUBLAS_COMPUTE_32F_FAST_TF32)
};

// cuBLAS on p's operands, in FP32 FMAs or in TF32: cublasGemmEx, column-major, where a
// row-major C is the column-major C^T = op(B)^T op(A)^T (the operands swap and keep their ops).
std::vector<float> run_cublas(const Problem& p, const Data& d, bool tf32) {
  cublasHandle_t handle = nullptr;
  REQUIRE(cublasCreate(&handle) == CUBLAS_STATUS_SUCCESS);
  REQUIRE(cublasSetMathMode(handle, tf32 ? CUBLAS_DEFAULT_MATH : CUBLAS_PEDANTIC_MATH) == CUBLAS_STATUS_SUCCESS);
  DeviceBuffer<float> a(d.a), b(d.b), c(d.c0);
  const float* pa = a.get() + p.l.off_a;
  const float* pb = b.get() + p.l.off_b;
  auto op = [](bool t) { return t ? CUBLAS_OP_T : CUBLAS_OP_N; };
  auto call = [&](bool tx, bool ty, std::int64_t rows, std::int64_t cols, const float* x, std::int64_t ldx,
                  const float* y, std::int64_t ldy) {
    return cublasGemmEx(handle, op(tx), op(ty), int(rows), int(cols), int(p.k), &p.alpha, x, CUDA_R_32F, int(ldx), y,
                        CUDA_R_32F, int(ldy), &p.beta, c.get() + p.l.off_c, CUDA_R_32F, int(p.ldc()),
                        tf32 ? CUBLAS_COMPUTE_32F_FAST_TF32 : CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT);
  };
  const cublasStatus_t status = p.row() ? call(p.tb(), p.ta(), p.n, p.m, pb, p.ldb(), pa, p.lda())
                                        : call(p.ta(), p.tb(), p.m, p.n, pa, p.lda(), pb, p.ldb());
  CHECK(status == CUBLAS_STATUS_SUCCESS);
  tilecraft::test::sync_and_check();
  CHECK(cublasDestroy(handle) == CUBLAS_STATUS_SUCCESS);
  return c.download();
}

RealsCase& reals_case(const Problem& p, std::uint64_t salt) {
  static std::map<std::string, RealsCase> cases;
  const auto [at, fresh] = cases.try_emplace(p.str("reals", salt));
  RealsCase& c = at->second;
  if (fresh) {
    auto g = tilecraft::test::rng(salt);
    c.d = make_data(p, [&] { return static_cast<float>(g.uniform_real(-1.0, 1.0)); });
    reference(p, c.d, c.want, c.mag);
  }
  return c;
}

constexpr double bound_of(GemmMath math, std::int64_t k) {
  return math == GemmMath::tf32 ? 2.0 * (0x1p-9 + double(k + 2) * 0x1p-24)
                                : 2.0 * (0x1p-20 + double(3 * k + 2) * 0x1p-24);
}

}  // namespace

TEST_CASE("gemm<tf32 / tf32x3>: the Hopper wgmma path runs where the build has sm_90a code and the GPU is cc 9.0") {
  int device = 0, major = 0, minor = 0;
  TILECRAFT_THROW_IF_ERROR(cudaGetDevice(&device));
  TILECRAFT_THROW_IF_ERROR(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device));
  TILECRAFT_THROW_IF_ERROR(cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, device));
  const bool wgmma = tilecraft::detail::gemm_wgmma_runs_on<float>(device);
  MESSAGE("sm_" << major << minor << ": TF32 gemm runs " << std::string(wgmma ? "the wgmma path" : "mma.sync"));
#ifdef TILECRAFT_TEST_EXPECT_WGMMA
  if (major == 9 && minor == 0) CHECK(wgmma);
#endif
}

TEST_CASE_TEMPLATE("gemm<tf32 / tf32x3>: exact products, odd shapes, both orders, every op, ld and alignment variants",
                   R, Tf32, Tf32x3, Tf32Wgmma, Tf32x3Wgmma, Tf32Split, Tf32x3Split, Tf32StreamK, Tf32x3StreamK,
                   Tf32x3StreamKAll, Tf32Split192, Tf32StreamK64, Tf32Short, Tf32x3Short) {
  struct Shape {
    std::int64_t m, n, k;
  };
  // (70 x 90 x 333: more K steps of 32 than any kernel's ring has stages, and partial sums that
  // TF32 could not hold exactly.)
  const Shape shapes[] = {{1, 1, 1},      {3, 2, 0},      {37, 29, 1}, {130, 260, 70},
                          {129, 257, 33}, {300, 520, 65}, {8, 300, 4}, {70, 90, 333}};
  const float scales[][2] = {{1.0f, 0.0f}, {2.0f, -0.5f}, {-0.5f, 1.0f}, {0.0f, 2.0f}};
  const bool light = tilecraft::test::sanitizer_sized();
  std::uint64_t salt = 1;
  int s_i = 0;
  for (const Shape& s : shapes) {
    for (int v = 0; v < 8; ++v) {
      const Order order = v < 4 ? Order::row_major : Order::col_major;
      const Op op_a = v & 1 ? Op::transpose : Op::none, op_b = v & 2 ? Op::transpose : Op::none;
      for (int li = 0; li < layout_count; ++li) {
        if (light && (li + v + s_i) % 8 != 0) continue;
        const auto& sc = scales[(li + v + s_i) % 4];
        check_exact<R>(Problem{order, op_a, op_b, s.m, s.n, s.k, sc[0], sc[1], layouts[li]}, salt++);
      }
    }
    ++s_i;
  }
}

TEST_CASE_TEMPLATE("gemm<tf32 / tf32x3>: random reals within the documented bound, beside FP32 SIMT gemm", R, Tf32,
                   Tf32x3, Tf32Wgmma, Tf32x3Wgmma, Tf32Split, Tf32x3Split, Tf32StreamK, Tf32x3StreamK, Tf32x3StreamKAll,
                   Tf32Split192, Tf32StreamK64, Tf32Short, Tf32x3Short, Tf32StreamKNoWorkspace, Tf32SplitNoWorkspace,
                   Tf32x3StreamKNoWorkspace, Tf32x3StreamKNoPartials) {
  constexpr GemmMath math = R::math;
  const bool light = tilecraft::test::sanitizer_sized();
  // Runners that refuse workspace take rows of 4 mod 8 floats (16-byte aligned, 16 bytes off a
  // 32-byte boundary): the aligned layout's operands are then read as stored (TF32's row-major
  // NN product as C^T = B^T A^T) once the refused request is asked again without the copy that
  // only aligns such rows (pack_unaligned_min is 0 in these runners), so that only the split
  // K's partial sums ask for workspace, and the fallback runs every tile whole.
  const bool refusing = R::tunables().workspace_limit >= 0;
  const std::int64_t m = light ? 130 : 1000, n = light ? (refusing ? 152 : 150) : (refusing ? 1000 : 999),
                     k = light ? (refusing ? 204 : 200) : (refusing ? 1004 : 1001);
  if (R::wgmma && R::tunables().workspace_limit > 0 && light) {
    // The premise of Tf32x3StreamKNoPartials in light runs: the operands' request within the
    // limit, the partial sums' (and flags') past it.
    int device = 0;
    tilecraft::detail::DeviceLimits limits{};
    TILECRAFT_THROW_IF_ERROR(cudaGetDevice(&device));
    TILECRAFT_THROW_IF_ERROR(tilecraft::detail::device_limits(device, limits));
    using Shape = tilecraft::detail::WgmmaGemmShape<float, true>;
    const auto plan = tilecraft::detail::wgmma_plan_of<Shape>(m, n, k, limits.sms, R::tunables());
    // (Split operands' rows are rounded up to 32 floats: tf32_packed_ld.)
    const std::int64_t operands = 2 * (m + n) * ((k + 31) / 32 * 32) * std::int64_t{sizeof(float)};
    const std::int64_t partials = std::int64_t{plan.blocks} * Shape::tile_m * Shape::tile_n * 4;
    REQUIRE(plan.stream_k());
    REQUIRE(operands <= R::tunables().workspace_limit);
    // (On an H200: 28 blocks, 1.8 MB. A GPU of fewer than 16 SMs plans fewer blocks, whose
    // partial sums may fit: the case still runs there, its fallback then not reached.)
    if (limits.sms >= 16) REQUIRE(partials > R::tunables().workspace_limit);
  }
  std::uint64_t salt = 1000;
  for (int v : {0, 7, 4, 1}) {
    // Light runs: the unaligned layout; with workspace refused also the aligned row-major NN
    // product (operands read as stored: the split K's fallback).
    if (light && v != 7 && !(refusing && v == 0)) continue;
    const Order order = v < 4 ? Order::row_major : Order::col_major;
    const Op op_a = v & 1 ? Op::transpose : Op::none, op_b = v & 2 ? Op::transpose : Op::none;
    const Problem p{order, op_a, op_b, m, n, k, 1.5f, v == 7 ? -0.75f : 0.0f, layouts[v == 7 ? 2 : 0]};
    CAPTURE(p.str(math_name(math), salt));
    RealsCase& rc = reals_case(p, salt++);
    const Data& d = rc.d;
    const std::vector<double>& want = rc.want;
    const std::vector<double>& mag = rc.mag;
    const double bound = bound_of(math, k);
    const std::vector<float> got = run_gemm<R>(p, d);
    const double worst = check_c(p, got, d, want, mag, bound);
    // The same bits on every run (stream-K adds its partial sums in a fixed order).
    if constexpr (R::wgmma) {
      const std::vector<float> again = run_gemm<R>(p, d);
      CHECK(std::memcmp(again.data(), got.data(), got.size() * sizeof(float)) == 0);
    }
    if (rc.simt < 0.0)
      rc.simt = check_c(p, run_gemm<Runner<GemmMath::simt>>(p, d), d, want, mag, 2.0 * double(k + 2) * 0x1p-24);
    const double simt = rc.simt;
    // cuBLAS in the same math (its C checked against the same bound as ours).
    double& peer = math == GemmMath::tf32 ? rc.cublas_tf32 : rc.cublas_fp32;
    if (peer < 0.0) peer = check_c(p, run_cublas(p, d, math == GemmMath::tf32), d, want, mag, bound);
    MESSAGE(p.str(math_name(math), salt - 1)
            << ": worst |error| / M " << worst << " (bound " << bound << "), FP32 SIMT " << simt << ", cuBLAS "
            << (math == GemmMath::tf32 ? "TF32 " : "FP32 ") << peer);
    // TF32x3 promises FP32's accuracy: its worst error no larger than FP32 SIMT gemm's on the
    // same data (measured on an H200: 0.39 to 0.64 times it) and within 1.5 times cuBLAS FP32's
    // (whose kernels, and so whose sums' order, cuBLAS picks by shape; the benchmarks' rows
    // compare the two on large products, where TF32x3's error is 4 to 6 times smaller). The
    // bound above is a worst case, loose enough to pass a TF32x3 that lost its small parts
    // (TF32's error, about 300 times FP32's) or whose running sums the tensor cores truncate
    // (about 10 times); these two catch both.
    if constexpr (math == GemmMath::tf32x3) {
      CHECK(worst <= simt);
      CHECK(worst <= 1.5 * peer);
    } else {
      // Truncation doubles TF32's unit and biases every product toward zero: about 2.6 times
      // cuBLAS's error expected (2.4-2.8 in the benchmarks' norm), 5 allowed.
      CHECK(worst <= 5.0 * peer);
    }
  }
}

TEST_CASE_TEMPLATE("gemm<tf32 / tf32x3>: rejected calls launch nothing and leave C alone; m or n == 0 does nothing", R,
                   Tf32, Tf32x3) {
  constexpr GemmMath math = R::math;
  const std::int64_t m = 5, n = 6, k = 7;
  std::vector<float> host(64, 1.0f), c_host(64, 3.0f);
  DeviceBuffer<float> a(host), b(host), c(c_host);
  const auto row = Order::row_major;
  const auto none = Op::none;
  auto call = [&](Order o, Op oa, std::int64_t mm, std::int64_t kk, const float* ap, std::int64_t lda, float* cp) {
    return tilecraft::gemm<math>(o, oa, none, mm, n, kk, 1.0f, ap, lda, b.get(), n, 0.0f, cp, n);
  };
  CHECK(call(static_cast<Order>(7), none, m, k, a.get(), k, c.get()) == cudaErrorInvalidValue);
  CHECK(call(row, static_cast<Op>(9), m, k, a.get(), k, c.get()) == cudaErrorInvalidValue);
  CHECK(call(row, none, -1, k, a.get(), k, c.get()) == cudaErrorInvalidValue);
  CHECK(call(row, none, m, -2, a.get(), k, c.get()) == cudaErrorInvalidValue);
  CHECK(call(row, none, m, k, a.get(), k - 1, c.get()) == cudaErrorInvalidValue);  // lda below k
  CHECK(call(row, none, m, k, nullptr, k, c.get()) == cudaErrorInvalidValue);
  CHECK(call(row, none, m, k, a.get(), k, nullptr) == cudaErrorInvalidValue);
  const float* misaligned = reinterpret_cast<const float*>(reinterpret_cast<const char*>(a.get()) + 2);
  CHECK(call(row, none, m, k, misaligned, k, c.get()) == cudaErrorInvalidValue);
  CHECK(call(row, none, 0, k, nullptr, k, nullptr) == cudaSuccess);  // m == 0: nothing is read or written
  // An earlier call's error of the same code stays in the last-error slot for its owner.
  tilecraft::test::check_keeps_earlier_invalid_value([&] { return call(row, none, -1, k, a.get(), k, c.get()); });
  tilecraft::test::sync_and_check();
  const std::vector<float> after = c.download();
  CHECK(std::all_of(after.begin(), after.end(), [](float x) { return x == 3.0f; }));
}

// BLAS's quick return: alpha == 0 or k == 0 with beta == 1 leaves C as it is. C all NaN of
// payload 0xffffffff: a call that rewrote C, even as 1 * C + 0, would leave the GPU's canonical
// NaN (0x7fffffff) instead.
TEST_CASE_TEMPLATE("gemm<tf32 / tf32x3>: alpha == 0 or k == 0 with beta == 1 returns at once, C untouched", R, Tf32,
                   Tf32x3) {
  constexpr GemmMath math = R::math;
  const std::int64_t m = 37, n = 41, k = 29;
  DeviceBuffer<float> a(static_cast<std::size_t>(m * k)), b(static_cast<std::size_t>(k * n)),
      c(static_cast<std::size_t>(m * n));
  a.poison();
  b.poison();
  TILECRAFT_THROW_IF_ERROR(cudaMemset(c.get(), 0xff, static_cast<std::size_t>(m * n) * sizeof(float)));
  const std::vector<float> before = c.download();
  const auto row = Order::row_major, col = Order::col_major;
  const auto none = Op::none;
  CHECK(tilecraft::gemm<math>(row, none, none, m, n, 0, 1.0f, a.get(), 1, b.get(), n, 1.0f, c.get(), n) == cudaSuccess);
  CHECK(tilecraft::gemm<math>(row, none, none, m, n, k, 0.0f, a.get(), k, b.get(), n, 1.0f, c.get(), n) == cudaSuccess);
  CHECK(tilecraft::gemm<math>(col, none, Op::transpose, m, n, k, 0.0f, a.get(), m, b.get(), n, 1.0f, c.get(), m) ==
        cudaSuccess);
  tilecraft::test::sync_and_check();
  const std::vector<float> after = c.download();
  CHECK(std::memcmp(after.data(), before.data(), before.size() * sizeof(float)) == 0);
}

// BLAS: with k == 0 (or alpha == 0) C = beta C, A and B unread, whatever alpha is: alpha x 0
// must not turn C into NaN when alpha is Inf or NaN. beta == 0: C is not read (NaN there).
TEST_CASE_TEMPLATE("gemm<tf32 / tf32x3>: k == 0 scales C by beta whatever alpha is, Inf and NaN included", R, Tf32,
                   Tf32x3, Tf32Wgmma, Tf32x3Wgmma, Tf32Short, Tf32x3Short) {
  const float inf = std::numeric_limits<float>::infinity();
  std::uint64_t salt = 3000;
  for (float alpha : {inf, -inf, nan_f, 0.0f, 3.0f}) {
    for (float beta : {0.5f, 0.0f}) {
      for (int v : {0, 7}) {
        const Order order = v < 4 ? Order::row_major : Order::col_major;
        const Op op = v & 1 ? Op::transpose : Op::none;
        const Problem p{order, op, op, 37, 29, 0, alpha, beta, layouts[v == 7 ? 4 : 0]};
        CAPTURE(p.str(math_name(R::math), salt));
        auto g = tilecraft::test::rng(salt++);
        const Data d = make_data(p, [&] { return static_cast<float>(g.uniform_int(-64, 64)) / 8.0f; });
        const std::vector<float> got = run_gemm<R>(p, d);
        int wrong = 0;
        for (std::int64_t i = 0; i < p.m; ++i) {
          for (std::int64_t j = 0; j < p.n; ++j) {
            const float want = beta == 0.0f ? 0.0f : beta * d.c0[p.ic(i, j)];  // exact: beta is a power of 2
            if (!(got[p.ic(i, j)] == want)) ++wrong;
          }
        }
        CHECK(wrong == 0);
      }
    }
  }
}

// The launcher's kernels follow a caller's kernel that lets its dependents launch early
// (late_writer: C and A written about a millisecond after it starts) and still read what it
// wrote: with k == 0 or alpha == 0 (C = beta C, nothing copied before the GEMM), with operands
// read as stored, and with rows copied first (+3: odd rows; NT: both K-contiguous operands
// copied, the second copy launched early beside the first); whole tiles and stream-K. Exact
// data, so C must equal the double reference of what the caller's kernel wrote.
TEST_CASE_TEMPLATE("gemm<tf32 / tf32x3>: a caller's kernel that lets its dependents launch early is waited for", R,
                   Tf32Wgmma, Tf32x3Wgmma, Tf32StreamK, Tf32x3StreamK) {
  using tilecraft::test::late_writer_cases;
  const long long cycles = tilecraft::test::late_writer_cycles;
  std::uint64_t salt = 4000;
  for (const auto& cs : late_writer_cases) {
    for (int v : {0, 2, 3}) {
      const Op op_a = v & 1 ? Op::transpose : Op::none, op_b = v & 2 ? Op::transpose : Op::none;
      const Problem p{Order::row_major, op_a, op_b, 130, 260, cs.k, cs.alpha, cs.beta, cs.layout};
      CAPTURE(p.str(math_name(R::math), salt));
      auto g = tilecraft::test::rng(salt++);
      auto draw = [&] { return static_cast<float>(g.uniform_int(-8, 8)) / 8.0f; };
      const Data before = make_data(p, draw);  // what C and A hold when the caller's kernel starts
      const Data after = make_data(p, draw);   // what it writes into them
      std::vector<double> want, mag;
      reference(p, Data{after.a, before.b, after.c0}, want, mag);
      DeviceBuffer<float> a(before.a), b(before.b), c(before.c0), a_new(after.a), c_new(after.c0);
      const tilecraft::test::Stream stream;
      tilecraft::test::late_writer<float>
          <<<1, 256, 0, stream>>>(c_new.get(), c.get(), c_new.size(), a_new.get(), a.get(), a_new.size(), cycles);
      CHECK(cudaGetLastError() == cudaSuccess);
      const cudaError_t status = tilecraft::detail::gemm_tf32_run<R::math>(
          p.order, p.op_a, p.op_b, p.m, p.n, p.k, p.alpha, a.get() + p.l.off_a, p.lda(), b.get() + p.l.off_b, p.ldb(),
          p.beta, c.get() + p.l.off_c, p.ldc(), stream, R::tunables());
      CHECK(status == cudaSuccess);
      stream.synchronize();
      tilecraft::test::sync_and_check();
      check_c(p, c.download(), Data{after.a, before.b, after.c0}, want, mag, 0.0);
    }
  }
}

TEST_CASE_TEMPLATE("gemm<tf32 / tf32x3>: Inf and NaN operands give FP32's Inf and NaN, near-FLT_MAX ones finite", R,
                   Tf32, Tf32x3, Tf32Wgmma, Tf32x3Wgmma, Tf32Split, Tf32x3Split, Tf32StreamK, Tf32x3StreamK,
                   Tf32x3StreamKAll, Tf32Short, Tf32x3Short) {
  constexpr GemmMath math = R::math;
  for (int v : {0, 5}) {
    const Order order = v < 4 ? Order::row_major : Order::col_major;
    const Op op_a = v & 1 ? Op::transpose : Op::none, op_b = v & 2 ? Op::transpose : Op::none;
    const Problem p{order, op_a, op_b, 150, 270, 45, 1.0f, 0.0f, layouts[0]};
    const std::uint64_t salt = 2000 + static_cast<std::uint64_t>(v);
    CAPTURE(p.str(math_name(math), salt));
    auto g = tilecraft::test::rng(salt);
    Data d = make_data(p, [&] { return static_cast<float>(g.uniform_int(-8, 8)) / 8.0f; });
    const float inf = std::numeric_limits<float>::infinity();
    // Row 3 of op(A) meets Inf at K 5 (and zeros in B's row 5 at columns 0 ... 9: Inf x 0 = NaN
    // there); column 7 of op(B) meets -Inf at K 40 (in the second K slice where K is split); row
    // 10 of op(A) holds a NaN.
    d.a[p.ia(3, 5)] = inf;
    for (std::int64_t j = 0; j < 10; ++j) d.b[p.ib(5, j)] = 0.0f;
    d.b[p.ib(40, 7)] = -inf;
    d.a[p.ia(10, 2)] = nan_f;
    if constexpr (math == GemmMath::tf32x3) {
      // Finite operands within half a TF32 unit of FLT_MAX (their TF32 rounding is Inf): row 20
      // of op(A) holds only 0x7f7ff000 at K 9, column 50 of op(B) only its negative at K 33. Each
      // is the largest finite TF32 value plus a remainder of one bit, so FP32 products with
      // multiples of 1/8 are exact: 3xTF32 must give them, not Inf or NaN.
      const float near_max = std::bit_cast<float>(0x7f7ff000u);
      for (std::int64_t q = 0; q < p.k; ++q) d.a[p.ia(20, q)] = q == 9 ? near_max : 0.0f;
      for (std::int64_t q = 0; q < p.k; ++q) d.b[p.ib(q, 50)] = q == 33 ? -near_max : 0.0f;
    }
    std::vector<double> want, mag;
    reference(p, d, want, mag);
    const std::vector<float> got = run_gemm<R>(p, d);
    std::int64_t bad = 0;
    for (std::int64_t i = 0; i < p.m; ++i) {
      for (std::int64_t j = 0; j < p.n; ++j) {
        const double w = want[static_cast<std::size_t>(i * p.n + j)];
        const float x = got[p.ic(i, j)];
        const bool ok = std::isnan(w) ? std::isnan(x) : (std::isinf(w) ? double(x) == w : double(x) == w);
        if (!ok && bad++ == 0) MESSAGE("C(" << i << ", " << j << ") = " << x << ", expected " << w);
      }
    }
    CHECK(bad == 0);
  }
}
