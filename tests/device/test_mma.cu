// The tensor-core wrappers (arch/mma.cuh, arch/ldmatrix.cuh) against host references on random
// inputs: to_tf32's rounding bit for bit (ties, the largest floats, Inf; NaN stays NaN); ldmatrix .x1,
// .x2, .x4 and .trans against the fragment layout written out element by element; m16n8k16 on
// FP16 and BF16 operands loaded with ldmatrix (values whose products and sums are exact in FP32:
// the result must equal the host's); m16n8k8 on TF32 within the FP32 rounding bound of its
// 8-term sums; the warp level WarpMmaTf32 (TF32 and TF32x3) on warp tiles of a block tile over
// K steps, against the exact product of the TF32-rounded operands (TF32) and of the operands
// themselves (TF32x3, within FP32's bound), Inf and NaN operands included; WarpMmaTf32 and
// WarpMma16 on each operand kind (a K-major tile, or the transposed view of a K-contiguous one)
// on small integers, against the exact product bit for bit, WarpMma16 also on Swizzled<16>
// tiles (ldmatrix from swizzled rows). The block level on 16-bit operands
// is test_mma_tiled_f16's and test_mma_tiled_bf16's (mma16_testbed.cuh). m16n8k8 on FP16 (the
// first half of m16n8k16's fragments) against the exact product of its 8 K. On sm_75 (the .sm75
// variant) FP16 runs Turing's m16n8k8 (m16n8k16 as two of them), the rest the FMA fallbacks.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <limits>
#include <string>
#include <type_traits>
#include <vector>

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <tilecraft/arch/ldmatrix.cuh>
#include <tilecraft/arch/mma.cuh>
#include <tilecraft/gemm/tiled_gemm.cuh>
#include <tilecraft/gemm/warp_mma_tf32.cuh>
#include <tilecraft/util/launch.cuh>

#include "test_util.cuh"

using tilecraft::test::DeviceBuffer;

namespace {

// cvt.rna.tf32.f32 on the host, from the definition rather than the device fallback's bit trick:
// of the two TF32 values around x (x with its 13 low bits cleared, and that plus one TF32 unit
// away from zero, the largest one stepping to Inf), the nearer in exact double arithmetic, the
// one away from zero on a tie.
std::uint32_t host_tf32(float x) {
  std::uint32_t r;
  std::memcpy(&r, &x, 4);
  if ((r & 0x7f800000u) == 0x7f800000u) return r;
  const std::uint32_t lo = r & 0xffffe000u;
  const int e = static_cast<int>((r >> 23) & 0xffu);
  const double unit = std::ldexp(1.0, (e == 0 ? -126 : e - 127) - 10);
  float lo_f;
  std::memcpy(&lo_f, &lo, 4);
  const double below = std::fabs(static_cast<double>(x) - lo_f);
  const double above = unit - below;  // distance to the next TF32 value away from zero
  return above <= below ? lo + 0x2000u : lo;
}
std::string hex(std::uint32_t bits) {
  char text[16];
  std::snprintf(text, sizeof text, "0x%08x", bits);
  return text;
}
float as_float(std::uint32_t bits) {
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}

__global__ void tf32_kernel(const float* in, std::uint32_t* out, int n) {
  const int i = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
  if (i < n) {
    out[i] = tilecraft::arch::to_tf32(in[i]);
    out[n + i] = tilecraft::arch::to_tf32_operand(in[i]);
  }
}

// tile: 16 x 16 16-bit elements, row-major. out[(j * 32 + lane)]: register j of each lane for
// ldmatrix .x4 (A-fragment order), then .x2.trans of the first 16 rows and 8 columns, then .x1.
__global__ void ldmatrix_kernel(const std::uint16_t* tile, std::uint32_t* out) {
  __shared__ alignas(16) std::uint16_t s[16][16];
  const int lane = static_cast<int>(threadIdx.x);
  for (int i = lane; i < 256; i += 32) s[i / 16][i % 16] = tile[i];
  __syncwarp();
  std::uint32_t x4[4], x2t[2], x1[1];
  tilecraft::arch::ldmatrix<4>(x4, &s[lane % 16][(lane / 16) * 8]);
  tilecraft::arch::ldmatrix<2, true>(x2t, &s[lane % 16][0]);
  tilecraft::arch::ldmatrix<1>(x1, &s[lane % 8][8]);
  for (int j = 0; j < 4; ++j) out[j * 32 + lane] = x4[j];
  for (int j = 0; j < 2; ++j) out[(4 + j) * 32 + lane] = x2t[j];
  out[6 * 32 + lane] = x1[0];
}

// D (16 x 8, row-major) = A (16 x 16, row-major) B (16 x 8, row-major: B[k][n]) + C, 16-bit
// operands through ldmatrix (A: .x4; B: .x2.trans); K8: m16n8k8 on FP16 from the fragments'
// first halves, so D = A[:, 0:8] B[0:8, :] + C.
template <bool Bf16, bool K8 = false>
__global__ void mma16_kernel(const std::uint16_t* a, const std::uint16_t* b, const float* c, float* d) {
  __shared__ alignas(16) std::uint16_t sa[16][16];
  __shared__ alignas(16) std::uint16_t sb[16][8];
  const int lane = static_cast<int>(threadIdx.x);
  for (int i = lane; i < 256; i += 32) sa[i / 16][i % 16] = a[i];
  for (int i = lane; i < 128; i += 32) sb[i / 8][i % 8] = b[i];
  __syncwarp();
  std::uint32_t fa[4], fb[2];
  tilecraft::arch::ldmatrix<4>(fa, &sa[lane % 16][(lane / 16) * 8]);
  tilecraft::arch::ldmatrix<2, true>(fb, &sb[lane % 16][0]);
  const int g = lane / 4, t = lane % 4;
  const float fc[4] = {c[g * 8 + 2 * t], c[g * 8 + 2 * t + 1], c[(g + 8) * 8 + 2 * t], c[(g + 8) * 8 + 2 * t + 1]};
  float fd[4];
  if constexpr (K8) {
    static_assert(!Bf16, "m16n8k8 is an FP16 product here");
    tilecraft::arch::mma_m16n8k8_f16(fd, fa[0], fa[1], fb[0], fc);
  } else if constexpr (Bf16) {
    tilecraft::arch::mma_m16n8k16_bf16(fd, fa, fb, fc);
  } else {
    tilecraft::arch::mma_m16n8k16_f16(fd, fa, fb, fc);
  }
  d[g * 8 + 2 * t] = fd[0];
  d[g * 8 + 2 * t + 1] = fd[1];
  d[(g + 8) * 8 + 2 * t] = fd[2];
  d[(g + 8) * 8 + 2 * t + 1] = fd[3];
}

// D (16 x 8) = A (16 x 8, row-major) B (8 x 8, B[k][n]) + C on TF32 operands.
__global__ void mma_tf32_kernel(const float* a, const float* b, const float* c, float* d) {
  using tilecraft::arch::to_tf32;
  const int lane = static_cast<int>(threadIdx.x);
  const int g = lane / 4, t = lane % 4;
  const std::uint32_t fa[4] = {to_tf32(a[g * 8 + t]), to_tf32(a[(g + 8) * 8 + t]), to_tf32(a[g * 8 + t + 4]),
                               to_tf32(a[(g + 8) * 8 + t + 4])};
  const std::uint32_t fb[2] = {to_tf32(b[t * 8 + g]), to_tf32(b[(t + 4) * 8 + g])};
  const float fc[4] = {c[g * 8 + 2 * t], c[g * 8 + 2 * t + 1], c[(g + 8) * 8 + 2 * t], c[(g + 8) * 8 + 2 * t + 1]};
  float fd[4];
  tilecraft::arch::mma_m16n8k8_tf32(fd, fa, fb, fc);
  d[g * 8 + 2 * t] = fd[0];
  d[g * 8 + 2 * t + 1] = fd[1];
  d[(g + 8) * 8 + 2 * t] = fd[2];
  d[(g + 8) * 8 + 2 * t + 1] = fd[3];
}

// The 16-bit pattern of v (exact in FP16 / BF16 for the test's values: multiples of 1/8 up to 4).
std::uint16_t bits16(float v, bool bf16) {
  std::uint32_t f;
  std::memcpy(&f, &v, 4);
  if (bf16) return static_cast<std::uint16_t>(f >> 16);
  if (v == 0.0f) return static_cast<std::uint16_t>((f >> 16) & 0x8000u);
  const std::uint32_t sign = (f >> 16) & 0x8000u;
  const int exp = static_cast<int>((f >> 23) & 0xffu) - 127 + 15;  // normal in FP16 for 1/8 ... 4
  const std::uint32_t mant = (f >> 13) & 0x3ffu;
  return static_cast<std::uint16_t>(sign | (static_cast<std::uint32_t>(exp) << 10) | mant);
}

}  // namespace

TEST_CASE("to_tf32 rounds to nearest, ties away from zero, as the host does") {
  auto g = tilecraft::test::rng(2001);
  std::vector<float> v;
  for (int i = 0; i < 4000; ++i) {
    std::uint32_t r = static_cast<std::uint32_t>(g());
    if ((r & 0x7f800000u) == 0x7f800000u) r &= 0xbfffffffu;  // finite
    v.push_back(as_float(r));
  }
  // Ties (the dropped field exactly half), just below and above, the largest floats (round to
  // Inf), Inf, zeros.
  for (std::uint32_t base : {0x3f800000u, 0xbf800000u, 0x7f7fe000u, 0x00400000u}) {
    v.push_back(as_float(base | 0x1000u));
    v.push_back(as_float(base | 0x0fffu));
    v.push_back(as_float(base | 0x1001u));
  }
  v.push_back(as_float(0x7f7fffffu));
  v.push_back(std::numeric_limits<float>::infinity());
  v.push_back(-std::numeric_limits<float>::infinity());
  v.push_back(0.0f);
  v.push_back(-0.0f);
  // NaNs, one with its payload only in the dropped bits: a NaN comes out, low 13 bits zero.
  for (std::uint32_t nan : {0x7fc00000u, 0x7f800001u, 0xffc00123u}) v.push_back(as_float(nan));
  const int n = static_cast<int>(v.size());
  DeviceBuffer<float> in(v);
  DeviceBuffer<std::uint32_t> out(2 * v.size());
  out.poison();
  tf32_kernel<<<(n + 255) / 256, 256>>>(in.get(), out.get(), n);
  tilecraft::test::sync_and_check();
  const auto got = out.download();
  int bad = 0;
  for (int i = 0; i < n; ++i) {
    const auto r = got[static_cast<std::size_t>(i)];
    const float x = v[static_cast<std::size_t>(i)];
    const bool ok = std::isnan(x) ? std::isnan(as_float(r)) && (r & 0x1fffu) == 0 : r == host_tf32(x);
    // to_tf32_operand: the same value through the top 19 bits the MMA reads, for every
    // number; a NaN stays a NaN there unless its payload lies only in the low 13 bits.
    const std::uint32_t op = got[static_cast<std::size_t>(n + i)] & 0xffffe000u;
    std::uint32_t xb;
    std::memcpy(&xb, &x, 4);
    const bool op_ok = std::isnan(x) ? ((xb & 0x007fe000u) == 0 || std::isnan(as_float(op))) : op == host_tf32(x);
    if (!op_ok && ++bad <= 8) MESSAGE("to_tf32_operand(" << hex(xb) << ") = " << hex(op));
    if (!ok && ++bad <= 8) {
      std::uint32_t xb;
      std::memcpy(&xb, &x, 4);
      MESSAGE("to_tf32(" << hex(xb) << ") = " << hex(r) << ", expected "
                         << (std::isnan(x) ? "a NaN" : hex(host_tf32(x))));
    }
  }
  CHECK(bad == 0);
}

TEST_CASE("ldmatrix x4, x2.trans and x1 hold the fragment layout's elements") {
  auto g = tilecraft::test::rng(2002);
  std::vector<std::uint16_t> tile(256);
  for (auto& e : tile) e = static_cast<std::uint16_t>(g());
  DeviceBuffer<std::uint16_t> d_tile(tile);
  DeviceBuffer<std::uint32_t> out(7 * 32);
  out.poison();
  ldmatrix_kernel<<<1, 32>>>(d_tile.get(), out.get());
  tilecraft::test::sync_and_check();
  const auto got = out.download();
  auto at = [&](int r, int c) { return static_cast<std::uint32_t>(tile[static_cast<std::size_t>(r * 16 + c)]); };
  auto pair = [](std::uint32_t lo, std::uint32_t hi) { return lo | (hi << 16); };
  int bad = 0;
  for (int lane = 0; lane < 32; ++lane) {
    const int gr = lane / 4, t = lane % 4;
    // x4: matrix j = rows (j % 2) * 8 ..., columns (j / 2) * 8 ...: elements (g, 2t), (g, 2t + 1).
    for (int j = 0; j < 4; ++j) {
      const int r = (j % 2) * 8 + gr, c = (j / 2) * 8 + 2 * t;
      bad += got[static_cast<std::size_t>(j * 32 + lane)] != pair(at(r, c), at(r, c + 1));
    }
    // x2.trans of rows 0-15, columns 0-7: matrix j = rows 8j ...; elements (2t, g), (2t + 1, g).
    for (int j = 0; j < 2; ++j) {
      const int r = 8 * j + 2 * t;
      bad += got[static_cast<std::size_t>((4 + j) * 32 + lane)] != pair(at(r, gr), at(r + 1, gr));
    }
    // x1 of rows 0-7, columns 8-15.
    bad += got[static_cast<std::size_t>(6 * 32 + lane)] != pair(at(gr, 8 + 2 * t), at(gr, 9 + 2 * t));
  }
  CHECK(bad == 0);
}

namespace {

// D = A[:, 0:K] B[0:K, :] + C through mma16_kernel<Bf16, K == 8> on values whose products and
// sums are exact in FP32 (multiples of 1/8 in [-4, 4]: every product a multiple of 1/64 below
// 16, every 16-term sum plus C, a multiple of 1/64 below 64, exact in any order), so D must
// equal the host's sum bit for bit.
template <bool Bf16, int K>
void check_mma16_exact(std::uint64_t seed) {
  CAPTURE(seed);
  auto g = tilecraft::test::rng(seed);
  auto value = [&] { return static_cast<float>(static_cast<int>(g() % 65) - 32) / 8.0f; };
  std::vector<float> a(256), b(128), c(128);
  for (auto& x : a) x = value();
  for (auto& x : b) x = value();
  for (auto& x : c) x = static_cast<float>(static_cast<int>(g() % 8193) - 4096) / 64.0f;
  std::vector<std::uint16_t> ab(256), bb(128);
  for (std::size_t i = 0; i < a.size(); ++i) ab[i] = bits16(a[i], Bf16);
  for (std::size_t i = 0; i < b.size(); ++i) bb[i] = bits16(b[i], Bf16);
  DeviceBuffer<std::uint16_t> da(ab), db(bb);
  DeviceBuffer<float> dc(c), dd(128);
  dd.poison();
  mma16_kernel<Bf16, K == 8><<<1, 32>>>(da.get(), db.get(), dc.get(), dd.get());
  tilecraft::test::sync_and_check();
  const auto got = dd.download();
  int bad = 0;
  for (int i = 0; i < 16; ++i) {
    for (int j = 0; j < 8; ++j) {
      double ref = c[static_cast<std::size_t>(i * 8 + j)];
      for (int k = 0; k < K; ++k) {
        ref += static_cast<double>(a[static_cast<std::size_t>(i * 16 + k)]) * b[static_cast<std::size_t>(k * 8 + j)];
      }
      bad += static_cast<double>(got[static_cast<std::size_t>(i * 8 + j)]) != ref;
    }
  }
  CHECK(bad == 0);
}

}  // namespace

TEST_CASE_TEMPLATE("m16n8k16 on FP16 and BF16 operands equals the exact product", Bf16, std::false_type,
                   std::true_type) {
  for (std::uint64_t seed : {3001u, 3002u, 3003u}) check_mma16_exact<Bf16::value, 16>(seed + (Bf16::value ? 100 : 0));
}

TEST_CASE("m16n8k8 on FP16 operands equals the exact product of the first 8 K") {
  for (std::uint64_t seed : {3501u, 3502u, 3503u}) check_mma16_exact<false, 8>(seed);
}

TEST_CASE("m16n8k8 on TF32 operands: within the FP32 rounding bound of the TF32 product") {
  for (std::uint64_t seed : {4001u, 4002u, 4003u}) {
    CAPTURE(seed);
    const auto a = tilecraft::test::random_vector<float>(128, -1.0, 1.0, seed);
    const auto b = tilecraft::test::random_vector<float>(64, -1.0, 1.0, seed + 1);
    const auto c = tilecraft::test::random_vector<float>(128, -1.0, 1.0, seed + 2);
    DeviceBuffer<float> da(a), db(b), dc(c), dd(128);
    dd.poison();
    mma_tf32_kernel<<<1, 32>>>(da.get(), db.get(), dc.get(), dd.get());
    tilecraft::test::sync_and_check();
    const auto got = dd.download();
    int bad = 0;
    double worst = 0;
    for (int i = 0; i < 16; ++i) {
      for (int j = 0; j < 8; ++j) {
        // The TF32 products are exact in FP32 (11-bit significands); what remains is the
        // accumulation of 8 products and C: 2 (K + 1) u of the absolute sum (twice the classical
        // bound: the tensor cores' additions are not all round-to-nearest).
        double ref = c[static_cast<std::size_t>(i * 8 + j)], abs = std::fabs(ref);
        for (int k = 0; k < 8; ++k) {
          const double p = static_cast<double>(as_float(host_tf32(a[static_cast<std::size_t>(i * 8 + k)]))) *
                           as_float(host_tf32(b[static_cast<std::size_t>(k * 8 + j)]));
          ref += p;
          abs += std::fabs(p);
        }
        const double err = std::fabs(static_cast<double>(got[static_cast<std::size_t>(i * 8 + j)]) - ref);
        const double bound = 2.0 * 9 * 0x1p-24 * abs;
        worst = std::max(worst, err / (bound > 0 ? bound : 1));
        bad += !(err <= bound);
      }
    }
    MESSAGE("worst error / bound: " << worst);
    CHECK(bad == 0);
  }
}

namespace {

// One block computes C (TM x TN, row-major) = A (TM x K, row-major) B (K x TN, row-major): K in
// steps of 16 rows through K-major shared tiles (zeros past K), each warp its WM x WN tile.
template <int TM, int TN, int WM, int WN, tilecraft::GemmMath Math>
__global__ void warp_mma_tf32_kernel(const float* a, const float* b, float* c, int k_total) {
  constexpr int tk = 16;
  using TileA = tilecraft::SharedMatrix<float, tk, TM, tilecraft::Padded<8>>;
  using TileB = tilecraft::SharedMatrix<float, tk, TN, tilecraft::Padded<8>>;
  using Mma = tilecraft::WarpMmaTf32<TileA, TileB, WM, WN, Math>;
  __shared__ TileA ta;
  __shared__ TileB tb;
  const int warp = static_cast<int>(threadIdx.x) / 32;
  const Mma mma((warp / (TN / WN)) * WM, (warp % (TN / WN)) * WN);
  typename Mma::Accumulators acc = {};
  for (int k0 = 0; k0 < k_total; k0 += tk) {
    for (int e = static_cast<int>(threadIdx.x); e < tk * TM; e += static_cast<int>(blockDim.x)) {
      const int k = e / TM, m = e % TM;
      ta(k, m) = k0 + k < k_total ? a[m * k_total + k0 + k] : 0.0f;
    }
    for (int e = static_cast<int>(threadIdx.x); e < tk * TN; e += static_cast<int>(blockDim.x)) {
      const int k = e / TN, n = e % TN;
      tb(k, n) = k0 + k < k_total ? b[(k0 + k) * TN + n] : 0.0f;
    }
    __syncthreads();
    mma.multiply(ta, tb, acc);
    __syncthreads();
  }
  for (int i = 0; i < Mma::tiles_m; ++i) {
    for (int j = 0; j < Mma::tiles_n; ++j) {
      for (int r = 0; r < 4; ++r) c[mma.row(i, r) * TN + mma.col(j, r)] = acc[i][j][r];
    }
  }
}

template <int TM, int TN, int WM, int WN, tilecraft::GemmMath Math>
void check_warp_mma_tf32(int k_total, bool specials) {
  using tilecraft::GemmMath;
  constexpr int threads = (TM / WM) * (TN / WN) * 32;
  const std::uint64_t salt = static_cast<std::uint64_t>(k_total) * 8 + (specials ? 4 : 0) + (TM == 64 ? 2 : 0) +
                             (Math == GemmMath::tf32x3 ? 1 : 0);
  auto a = tilecraft::test::random_vector<float>(static_cast<std::size_t>(TM) * k_total, -1.0, 1.0, salt);
  const auto b = tilecraft::test::random_vector<float>(static_cast<std::size_t>(k_total) * TN, -1.0, 1.0, salt + 1);
  if (specials) {  // an Inf in row 3 and a NaN in row 7 of A (B's random values are never zero)
    a[static_cast<std::size_t>(3 * k_total + k_total / 2)] = std::numeric_limits<float>::infinity();
    a[static_cast<std::size_t>(7 * k_total)] = std::numeric_limits<float>::quiet_NaN();
  }
  DeviceBuffer<float> da(a), db(b), dc(static_cast<std::size_t>(TM) * TN);
  dc.poison();
  warp_mma_tf32_kernel<TM, TN, WM, WN, Math><<<1, threads>>>(da.get(), db.get(), dc.get(), k_total);
  tilecraft::test::sync_and_check();
  const auto got = dc.download();
  // TF32: the exact product of the TF32-rounded operands, within the FP32 rounding of a
  // K-term sum (2 (K + 2) u of the absolute sum, u = 2^-24: the tensor cores' additions are not
  // all round-to-nearest). TF32x3: the exact product of the operands themselves, within what an
  // FP32 GEMM promises (gemm_testbed.cuh) with K + 8 for K + 2: each product's split leaves up
  // to 3 * 2^-22 = 12 u of it, six more roundings' worth.
  const int extra = Math == GemmMath::tf32 ? 2 : 8;
  const auto operand = [](float x) { return Math == GemmMath::tf32 ? as_float(host_tf32(x)) : x; };
  int bad = 0;
  double worst = 0;
  for (int m = 0; m < TM; ++m) {
    for (int n = 0; n < TN; ++n) {
      double ref = 0, abs = 0;
      for (int k = 0; k < k_total; ++k) {
        const double p = static_cast<double>(operand(a[static_cast<std::size_t>(m * k_total + k)])) *
                         operand(b[static_cast<std::size_t>(k * TN + n)]);
        ref += p;
        abs += std::fabs(p);
      }
      const float g = got[static_cast<std::size_t>(m * TN + n)];
      if (!std::isfinite(ref)) {
        const bool same = std::isnan(ref) ? std::isnan(g) : g == static_cast<float>(ref);
        if (!same) MESSAGE("C(" << m << ", " << n << ") = " << g << ", expected " << ref);
        bad += !same;
        continue;
      }
      const double err = std::fabs(static_cast<double>(g) - ref);
      const double bound = 2.0 * (k_total + extra) * 0x1p-24 * abs;
      worst = std::max(worst, err / (bound > 0 ? bound : 1));
      bad += !(err <= bound);
    }
  }
  MESSAGE(std::string(Math == GemmMath::tf32 ? "TF32 " : "TF32x3 ")
          << TM << " x " << TN << " x " << k_total << ": worst error / bound " << worst);
  CHECK(bad == 0);
}

}  // namespace

TEST_CASE_TEMPLATE("WarpMmaTf32: TF32 equals the TF32 product, TF32x3 the FP32 product, within FP32's bound", Math,
                   std::integral_constant<tilecraft::GemmMath, tilecraft::GemmMath::tf32>,
                   std::integral_constant<tilecraft::GemmMath, tilecraft::GemmMath::tf32x3>) {
  for (int k_total : {1, 8, 37, 300}) {
    CAPTURE(k_total);
    check_warp_mma_tf32<64, 64, 32, 32, Math::value>(k_total, false);       // 2 x 2 warps of 2 x 4 MMA tiles
    check_warp_mma_tf32<32, 16, 16, 8, Math::value>(k_total, k_total > 7);  // 2 x 2 warps of one MMA tile
  }
}

// ---- the warp classes on every operand kind: K-major tiles and transposed views -------------

namespace {

// One block computes C (64 x 32, row-major) = A (64 x K, row-major) B (K x 32, row-major) with
// 2 x 2 warps of 32 x 16, K in steps of TK through shared tiles (zeros past K). Each operand is
// staged either K-major (A as a K x 64 tile, B as K x 32: what the warp classes read directly)
// or K-contiguous (A as 64 x K, B as 32 x K: the layout of a row-major A or a column-major B),
// then handed to multiply() as its transposed() view. Math: tf32 or tf32x3 (WarpMmaTf32, float
// operands) or mma16 (WarpMma16, T __half or __nv_bfloat16). Swizzle: the tiles unpadded, their
// 16-byte chunks XOR-swizzled (Swizzled<16, RowGroup>, RowGroup consecutive rows sharing one
// permutation where a row is narrower than the 128 bytes of a bank row), which the bank model
// must prove conflict-free for the fragment loads as it does the padded ones.
template <class T, int Rows, int Cols>
using SwizzledOperand =
    tilecraft::SharedMatrix<T, Rows, Cols,
                            tilecraft::Swizzled<16, (Cols * sizeof(T) >= 128 ? 1 : 128 / (Cols * sizeof(T)))>>;

template <class T, tilecraft::GemmMath Math, bool ViewA, bool ViewB, bool Swizzle = false>
struct WarpViewsCase {
  static constexpr int tm = 64, tn = 32, wm = 32, wn = 16, threads = 4 * 32;
  static constexpr int tk = static_cast<int>(64 / sizeof(T));  // 16 floats, 32 16-bit values
  // K-contiguous rows of TK + 16 bytes: an odd number of 16-byte chunks (20 floats, 40 16-bit
  // values), so the 8 rows of a fragment load fall on 8 different bank groups. K-major rows of
  // TM or TN + 8 elements: 72 / 40 floats (8 mod 32), 144 / 80 bytes (9 / 5 chunks).
  using PaddedA = std::conditional_t<ViewA, tilecraft::SharedMatrix<T, tm, tk, tilecraft::Padded<16 / sizeof(T)>>,
                                     tilecraft::SharedMatrix<T, tk, tm, tilecraft::Padded<8>>>;
  using PaddedB = std::conditional_t<ViewB, tilecraft::SharedMatrix<T, tn, tk, tilecraft::Padded<16 / sizeof(T)>>,
                                     tilecraft::SharedMatrix<T, tk, tn, tilecraft::Padded<8>>>;
  using SwizzledA = std::conditional_t<ViewA, SwizzledOperand<T, tm, tk>, SwizzledOperand<T, tk, tm>>;
  using SwizzledB = std::conditional_t<ViewB, SwizzledOperand<T, tn, tk>, SwizzledOperand<T, tk, tn>>;
  using StoreA = std::conditional_t<Swizzle, SwizzledA, PaddedA>;
  using StoreB = std::conditional_t<Swizzle, SwizzledB, PaddedB>;
  using OperandA = std::conditional_t<ViewA, tilecraft::TransposedView<const StoreA>, StoreA>;
  using OperandB = std::conditional_t<ViewB, tilecraft::TransposedView<const StoreB>, StoreB>;
  using Mma = std::conditional_t<Math == tilecraft::GemmMath::mma16, tilecraft::WarpMma16<OperandA, OperandB, wm, wn>,
                                 tilecraft::WarpMmaTf32<OperandA, OperandB, wm, wn, Math>>;
  static_assert(Mma::tiles_m == 2 && Mma::tiles_n == 2);
};

template <class T, tilecraft::GemmMath Math, bool ViewA, bool ViewB, bool Swizzle>
__global__ void warp_mma_views_kernel(const T* a, const T* b, float* c, int k_total) {
  using Case = WarpViewsCase<T, Math, ViewA, ViewB, Swizzle>;
  constexpr int tm = Case::tm, tn = Case::tn, tk = Case::tk;
  __shared__ typename Case::StoreA sa;
  __shared__ typename Case::StoreB sb;
  const int warp = static_cast<int>(threadIdx.x) / 32;
  const typename Case::Mma mma((warp / 2) * Case::wm, (warp % 2) * Case::wn);
  typename Case::Mma::Accumulators acc = {};
  const T zero{};
  for (int k0 = 0; k0 < k_total; k0 += tk) {
    for (int e = static_cast<int>(threadIdx.x); e < tk * tm; e += Case::threads) {
      const int k = e % tk, m = e / tk;
      const T v = k0 + k < k_total ? a[m * k_total + k0 + k] : zero;
      if constexpr (ViewA) {
        sa(m, k) = v;
      } else {
        sa(k, m) = v;
      }
    }
    for (int e = static_cast<int>(threadIdx.x); e < tk * tn; e += Case::threads) {
      const int k = e / tn, n = e % tn;
      const T v = k0 + k < k_total ? b[(k0 + k) * tn + n] : zero;
      if constexpr (ViewB) {
        sb(n, k) = v;
      } else {
        sb(k, n) = v;
      }
    }
    __syncthreads();
    if constexpr (ViewA && ViewB) {
      mma.multiply(tilecraft::transposed(sa), tilecraft::transposed(sb), acc);
    } else if constexpr (ViewA) {
      mma.multiply(tilecraft::transposed(sa), sb, acc);
    } else if constexpr (ViewB) {
      mma.multiply(sa, tilecraft::transposed(sb), acc);
    } else {
      mma.multiply(sa, sb, acc);
    }
    __syncthreads();
  }
  for (int i = 0; i < Case::Mma::tiles_m; ++i) {
    for (int j = 0; j < Case::Mma::tiles_n; ++j) {
      for (int r = 0; r < 4; ++r) c[mma.row(i, r) * tn + mma.col(j, r)] = acc[i][j][r];
    }
  }
}

// Small integers (-4 .. 4: exact in TF32, FP16 and BF16; products and K-term sums exact in
// FP32, whatever the tensor cores' rounding), so C must equal the host's integer product bit
// for bit: what is checked is that every element comes from the right operands' elements.
template <class T, tilecraft::GemmMath Math, bool ViewA, bool ViewB, bool Swizzle = false>
void check_warp_mma_views(int k_total) {
  using Case = WarpViewsCase<T, Math, ViewA, ViewB, Swizzle>;
  constexpr int tm = Case::tm, tn = Case::tn;
  const std::uint64_t salt = static_cast<std::uint64_t>(k_total) * 16 + (ViewA ? 8 : 0) + (ViewB ? 4 : 0) +
                             static_cast<std::uint64_t>(Math) + (std::is_same_v<T, __half> ? 1000 : 0);
  const auto ia = tilecraft::test::random_vector<int>(static_cast<std::size_t>(tm) * k_total, -4, 4, salt);
  const auto ib = tilecraft::test::random_vector<int>(static_cast<std::size_t>(k_total) * tn, -4, 4, salt + 1);
  const auto to_t = [](const std::vector<int>& v) {
    std::vector<T> out(v.size());
    for (std::size_t i = 0; i < v.size(); ++i) {
      const auto x = static_cast<float>(v[i]);
      if constexpr (std::is_same_v<T, __half>) {
        out[i] = __float2half(x);
      } else if constexpr (std::is_same_v<T, __nv_bfloat16>) {
        out[i] = __float2bfloat16(x);
      } else {
        out[i] = x;
      }
    }
    return out;
  };
  DeviceBuffer<T> da(to_t(ia)), db(to_t(ib));
  DeviceBuffer<float> dc(static_cast<std::size_t>(tm) * tn);
  dc.poison();
  warp_mma_views_kernel<T, Math, ViewA, ViewB, Swizzle><<<1, Case::threads>>>(da.get(), db.get(), dc.get(), k_total);
  tilecraft::test::sync_and_check();
  const auto got = dc.download();
  int bad = 0;
  for (int m = 0; m < tm; ++m) {
    for (int n = 0; n < tn; ++n) {
      long long ref = 0;
      for (int k = 0; k < k_total; ++k) {
        ref += static_cast<long long>(ia[static_cast<std::size_t>(m * k_total + k)]) *
               ib[static_cast<std::size_t>(k * tn + n)];
      }
      const float g = got[static_cast<std::size_t>(m * tn + n)];
      if (!(g == static_cast<float>(ref)) && bad++ < 4) {
        MESSAGE("C(" << m << ", " << n << ") = " << g << ", expected " << ref);
      }
    }
  }
  CHECK(bad == 0);
}

// Every operand kind for one math per class; the other (TF32x3, BF16) loads its fragments the
// same way, so one kind (both operands transposed views) covers it.
template <class T, tilecraft::GemmMath Math, bool AllKinds>
void check_warp_mma_all_views() {
  for (int k_total : {1, 64, 100}) {  // one partial step, whole steps, whole steps and a partial one
    CAPTURE(k_total);
    if constexpr (AllKinds) {
      check_warp_mma_views<T, Math, false, false>(k_total);
      check_warp_mma_views<T, Math, true, false>(k_total);
      check_warp_mma_views<T, Math, false, true>(k_total);
    }
    check_warp_mma_views<T, Math, true, true>(k_total);
  }
}

}  // namespace

TEST_CASE("WarpMmaTf32 and WarpMma16 on K-major tiles and transposed views of K-contiguous ones: the exact product") {
  using tilecraft::GemmMath;
  SUBCASE("WarpMmaTf32, TF32") { check_warp_mma_all_views<float, GemmMath::tf32, true>(); }
  SUBCASE("WarpMmaTf32, TF32x3") { check_warp_mma_all_views<float, GemmMath::tf32x3, false>(); }
  SUBCASE("WarpMma16, FP16") { check_warp_mma_all_views<__half, GemmMath::mma16, true>(); }
  SUBCASE("WarpMma16, BF16") { check_warp_mma_all_views<__nv_bfloat16, GemmMath::mma16, false>(); }
  // ldmatrix from swizzled tiles (WarpMmaTf32's 4-byte fragment loads from K-major tiles are
  // not conflict-free on 16-byte swizzles: its static_assert refuses them, as the model says).
  SUBCASE("WarpMma16, FP16, on swizzled tiles") {
    for (int k_total : {64, 100}) {
      CAPTURE(k_total);
      check_warp_mma_views<__half, GemmMath::mma16, false, false, true>(k_total);
      check_warp_mma_views<__half, GemmMath::mma16, true, false, true>(k_total);
      check_warp_mma_views<__half, GemmMath::mma16, false, true, true>(k_total);
      check_warp_mma_views<__half, GemmMath::mma16, true, true, true>(k_total);
    }
  }
}
