// The TMA copy and the transaction barrier (arch/tma.cuh, arch/mbarrier.cuh) with the tensor
// maps the GEMM launchers encode (device/detail/tensor_map.cuh): boxes of random 2-D tensors of
// float and BF16 (random extents and leading dimensions) at random origins, negative and past
// the end included (the inner one in whole 16-byte chunks, as TMA requires), copied into a ring of two shared buffers
// that one mbarrier each guards (its phase parity alternating with each use); every element of every box read back
// through the 128-byte swizzle (chunk c of row r at chunk c ^ (r % 8)) and compared bit for bit with the tensor, zeros
// outside it. Also the encoder's argument rules. sm_90 and later only.
// And wgmma at the arch level (arch/wgmma.cuh: wgmma_descriptor, wgmma_fence, wgmma_async,
// wgmma_commit, wgmma_wait, fence_proxy_async_shared): one warpgroup multiplies K-major BF16 and
// TF32 tiles stored in the 128-byte swizzle by plain stores, every K step a descriptor 32 bytes
// further along the rows; D read back through the documented accumulator layout and compared
// exactly with the host (small integers: every sum exact). sm_90a code only (the test builds
// sm_90 as sm_90a).
#include <doctest/doctest.h>

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include <cuda_bf16.h>

#include <tilecraft/arch/mbarrier.cuh>
#include <tilecraft/arch/tma.cuh>
#include <tilecraft/arch/wgmma.cuh>
#include <tilecraft/device/detail/tensor_map.cuh>

#include "test_util.cuh"

using tilecraft::test::DeviceBuffer;

namespace {

constexpr int box_count = 9;
// The boxes' origins, by value (a kernel parameter).
struct Origins {
  int xy[2 * box_count];
};

// Copies box i (origin origins.xy[2 i], origins.xy[2 i + 1]) of `map` into buffer i % 2 and
// writes its elements, unswizzled, row-major to out + i * BoxInner * BoxOuter. The GEMM's
// arrangement: 128 reading threads, and a producer warp (threads 128 ... 159) whose first lane
// issues every copy while the others leave; a full and an empty mbarrier per buffer.
template <class T, int BoxInner, int BoxOuter>
__global__ void copy_boxes(const __grid_constant__ CUtensorMap map, const Origins origins, T* out) {
  constexpr int box_bytes = BoxInner * BoxOuter * static_cast<int>(sizeof(T));
  constexpr int readers = 128;
  extern __shared__ unsigned char raw[];
  unsigned char* buf =
      reinterpret_cast<unsigned char*>((reinterpret_cast<std::uintptr_t>(raw) + 1023) & ~std::uintptr_t{1023});
  __shared__ std::uint64_t full[2];
  __shared__ std::uint64_t empty[2];
  const int t = static_cast<int>(threadIdx.x);
  if (t == 0) {
    for (int b = 0; b < 2; ++b) {
      tilecraft::arch::mbarrier_init(&full[b], 1);
      tilecraft::arch::mbarrier_init(&empty[b], readers);
    }
    tilecraft::arch::mbarrier_init_fence();
  }
  __syncthreads();
  if (t >= readers) {
    if (t == readers) {
      for (int i = 0; i < box_count; ++i) {
        const int b = i % 2;
        if (i >= 2) tilecraft::arch::mbarrier_wait(&empty[b], ((i / 2) & 1) ^ 1);
        tilecraft::arch::mbarrier_arrive_expect_tx(&full[b], box_bytes);
        tilecraft::arch::tma_load_2d(buf + b * box_bytes, &map, &full[b], origins.xy[2 * i], origins.xy[2 * i + 1]);
      }
    }
    return;
  }
  for (int i = 0; i < box_count; ++i) {
    const int b = i % 2;
    const unsigned char* src = buf + b * box_bytes;
    tilecraft::arch::mbarrier_wait(&full[b], (i / 2) & 1);
    for (int e = t; e < BoxInner * BoxOuter; e += readers) {
      const int r = e / BoxInner;
      const int byte = (e % BoxInner) * static_cast<int>(sizeof(T));
      const int at = r * 128 + (((byte / 16) ^ (r % 8)) * 16) + byte % 16;
      T v;
      std::memcpy(&v, src + at, sizeof(T));
      out[static_cast<std::size_t>(i) * BoxInner * BoxOuter + e] = v;
    }
    tilecraft::arch::mbarrier_arrive(&empty[b]);
  }
}

template <class T, int BoxInner, int BoxOuter>
void check_boxes(tilecraft::test::Rng& rng, int trial) {
  constexpr int elems_per_16 = 16 / static_cast<int>(sizeof(T));
  const std::int64_t inner = rng.uniform_int(1, 300), outer = rng.uniform_int(1, 300);
  const std::int64_t ld =
      (inner + elems_per_16 - 1) / elems_per_16 * elems_per_16 + elems_per_16 * rng.uniform_int(0, 3);
  // Random bit patterns, never all zero (the fill outside the tensor is zero).
  std::vector<T> host(static_cast<std::size_t>(ld * outer));
  for (auto& x : host) {
    x = tilecraft::test::make_value<T>(rng());
    unsigned char first;
    std::memcpy(&first, &x, 1);
    first |= 1;
    std::memcpy(&x, &first, 1);
  }
  DeviceBuffer<T> src(host);
  CUtensorMap map{};
  REQUIRE(tilecraft::detail::encode_tensor_map_2d(map, src.get(), inner, outer, ld, BoxInner, BoxOuter) == cudaSuccess);

  const int count = box_count;
  std::vector<int> origins(2 * count);
  for (int i = 0; i < count; ++i) {
    // The inner coordinate in whole 16-byte chunks: TMA's rule (others fault).
    origins[2 * i] =
        static_cast<int>(rng.uniform_int(-BoxInner / elems_per_16 - 1, inner / elems_per_16 + 1)) * elems_per_16;
    origins[2 * i + 1] = static_cast<int>(rng.uniform_int(-BoxOuter - 3, outer + 3));
  }
  origins[0] = 0;  // one box at the origin, one across the far corner
  origins[1] = 0;
  origins[2] = static_cast<int>((inner - 1) / elems_per_16 * elems_per_16);
  origins[3] = static_cast<int>(outer) - 1;
  Origins by_value{};
  for (int i = 0; i < 2 * count; ++i) by_value.xy[i] = origins[i];
  DeviceBuffer<T> out(static_cast<std::size_t>(count) * BoxInner * BoxOuter);
  out.poison();
  auto kernel = copy_boxes<T, BoxInner, BoxOuter>;
  const int smem = 2 * BoxInner * BoxOuter * static_cast<int>(sizeof(T)) + 1024;
  TILECRAFT_THROW_IF_ERROR(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
  kernel<<<1, 160, smem>>>(map, by_value, out.get());
  tilecraft::test::sync_and_check();
  const std::vector<T> got = out.download();
  int wrong = 0;
  for (int i = 0; i < count; ++i) {
    for (int r = 0; r < BoxOuter; ++r) {
      for (int c = 0; c < BoxInner; ++c) {
        const std::int64_t y = origins[2 * i + 1] + r, x = origins[2 * i] + c;
        T want{};
        std::memset(&want, 0, sizeof(T));
        if (x >= 0 && x < inner && y >= 0 && y < outer) want = host[static_cast<std::size_t>(y * ld + x)];
        const T have = got[(static_cast<std::size_t>(i) * BoxOuter + r) * BoxInner + c];
        if (!tilecraft::test::same_bits(have, want) && ++wrong <= 3) {
          FAIL_CHECK("trial " << trial << ": tensor " << inner << " x " << outer << " (ld " << ld << "), box " << i
                              << " at (" << origins[2 * i] << ", " << origins[2 * i + 1] << "), element (" << c << ", "
                              << r << ") differs");
        }
      }
    }
  }
  CHECK(wrong == 0);
}

// D (64 x N floats) = A B with A 64 x E and B N x E (both K-major: row r holds its E = 128 bytes
// of K), one warpgroup: the tiles go to shared memory in the 128-byte swizzle (16-byte chunk c of
// row r at chunk c ^ (r % 8)) by plain stores, then four products of 32 bytes of K each.
template <class T, int N>
__global__ void __launch_bounds__(128) warpgroup_product(const T* a, const T* b, float* d) {
  constexpr int e = 128 / static_cast<int>(sizeof(T));  // K: one 128-byte row
  __shared__ alignas(1024) T sa[64 * e];
  __shared__ alignas(1024) T sb[N * e];
  const int t = static_cast<int>(threadIdx.x);
  constexpr int per_chunk = 16 / static_cast<int>(sizeof(T));
  for (int v = t; v < (64 + N) * 8; v += 128) {  // 16-byte chunks, 8 a row: A's 64 rows, then B's N
    const bool is_a = v < 64 * 8;
    const int row = is_a ? v / 8 : v / 8 - 64, c = v % 8;
    const T* src = (is_a ? a : b) + row * e + c * per_chunk;
    T* dst = (is_a ? sa : sb) + row * e + (c ^ (row % 8)) * per_chunk;
    *reinterpret_cast<uint4*>(dst) = *reinterpret_cast<const uint4*>(src);
  }
  tilecraft::arch::fence_proxy_async_shared();  // the stores, visible to the tensor cores
  __syncthreads();
  float acc[N / 2];
  for (float& x : acc) x = -1.0f;  // overwritten: the first product does not accumulate
  tilecraft::arch::wgmma_fence();
  for (int kk = 0; kk < 4; ++kk) {  // K-major, 128-byte swizzle: 8-row groups 1024 bytes apart
    using tilecraft::arch::WgmmaSwizzle;
    const std::uint64_t da = tilecraft::arch::wgmma_descriptor(&sa[kk * e / 4], 16, 1024, WgmmaSwizzle::b128);
    const std::uint64_t db = tilecraft::arch::wgmma_descriptor(&sb[kk * e / 4], 16, 1024, WgmmaSwizzle::b128);
    tilecraft::arch::wgmma_async<N, T, false, false>(acc, da, db, kk > 0 ? 1u : 0u);
  }
  tilecraft::arch::wgmma_commit();
  tilecraft::arch::wgmma_wait<0>();
  // d[4 j + 0 ... 3]: (16 w + g, 8 j + 2 t), (.., + 1), (16 w + g + 8, 8 j + 2 t), (.., + 1).
  const int w = t / 32, g = t % 32 / 4, q = t % 4;
  for (int j = 0; j < N / 8; ++j) {
    const int r0 = 16 * w + g, c0 = 8 * j + 2 * q;
    d[r0 * N + c0] = acc[4 * j];
    d[r0 * N + c0 + 1] = acc[4 * j + 1];
    d[(r0 + 8) * N + c0] = acc[4 * j + 2];
    d[(r0 + 8) * N + c0 + 1] = acc[4 * j + 3];
  }
}

template <class T, int N>
void check_warpgroup_product(tilecraft::test::Rng& rng) {
  constexpr int e = 128 / static_cast<int>(sizeof(T));
  // Integers in [-4, 4]: exact in BF16 and TF32, every sum of e products exact in FP32.
  std::vector<T> a(64 * e), b(static_cast<std::size_t>(N) * e);
  std::vector<float> fa(a.size()), fb(b.size());
  for (std::size_t i = 0; i < a.size(); ++i) fa[i] = static_cast<float>(rng.uniform_int(-4, 4));
  for (std::size_t i = 0; i < b.size(); ++i) fb[i] = static_cast<float>(rng.uniform_int(-4, 4));
  for (std::size_t i = 0; i < a.size(); ++i) a[i] = static_cast<T>(fa[i]);
  for (std::size_t i = 0; i < b.size(); ++i) b[i] = static_cast<T>(fb[i]);
  DeviceBuffer<T> da(a), db(b);
  DeviceBuffer<float> dd(static_cast<std::size_t>(64) * N);
  dd.poison();
  warpgroup_product<T, N><<<1, 128>>>(da.get(), db.get(), dd.get());
  tilecraft::test::sync_and_check();
  const std::vector<float> got = dd.download();
  int wrong = 0;
  for (int r = 0; r < 64; ++r) {
    for (int c = 0; c < N; ++c) {
      float want = 0.0f;
      for (int k = 0; k < e; ++k)
        want += fa[static_cast<std::size_t>(r * e + k)] * fb[static_cast<std::size_t>(c * e + k)];
      if (got[static_cast<std::size_t>(r * N + c)] != want && ++wrong <= 3) {
        FAIL_CHECK("N = " << N << ", " << (sizeof(T) == 2 ? "bf16" : "tf32") << ": D(" << r << ", " << c
                          << ") = " << got[static_cast<std::size_t>(r * N + c)] << ", expected " << want);
      }
    }
  }
  CHECK(wrong == 0);
}

}  // namespace

TEST_CASE("TMA boxes at random origins arrive whole, swizzled, zero outside the tensor") {
  tilecraft::test::Rng rng(tilecraft::test::seed() ^ 0x7A11);
  const int trials = tilecraft::test::sanitizer_sized() ? 3 : 12;
  for (int trial = 0; trial < trials; ++trial) {
    check_boxes<float, 32, 128>(rng, trial);
    check_boxes<__nv_bfloat16, 64, 256>(rng, trial);
    check_boxes<float, 32, 16>(rng, trial);
    check_boxes<__nv_bfloat16, 64, 8>(rng, trial);
  }
}

TEST_CASE("tensor maps refuse what TMA cannot read") {
  DeviceBuffer<float> buf(4096);
  CUtensorMap map{};
  using tilecraft::detail::encode_tensor_map_2d;
  CHECK(encode_tensor_map_2d(map, buf.get() + 1, 8, 8, 8, 32, 8) == cudaErrorInvalidValue);  // base not 16-byte aligned
  CHECK(encode_tensor_map_2d(map, buf.get(), 8, 8, 6, 32, 8) == cudaErrorInvalidValue);      // ld below the row
  CHECK(encode_tensor_map_2d(map, buf.get(), 6, 8, 6, 32, 8) == cudaErrorInvalidValue);      // rows 24 bytes apart
  CHECK(encode_tensor_map_2d(map, buf.get(), 0, 8, 8, 32, 8) == cudaErrorInvalidValue);      // empty
  CHECK(encode_tensor_map_2d(map, buf.get(), 8, 8, 8, 16, 8) == cudaErrorInvalidValue);      // box row not 128 bytes
  CHECK(encode_tensor_map_2d(map, buf.get(), 8, 8, 8, 32, 257) == cudaErrorInvalidValue);    // box too tall
  CHECK(encode_tensor_map_2d(map, buf.get(), 8, 8, 8, 32, 8) == cudaSuccess);
}

TEST_CASE("wgmma on one warpgroup: swizzled K-major tiles, descriptors stepped along K, the accumulator layout") {
#if defined(TILECRAFT_TEST_EXPECT_WGMMA)
  // (sm_90a code runs on cc 9.0 alone; a build for newer GPUs too runs their code, which traps.)
  int device = 0, major = 0, minor = 0;
  TILECRAFT_THROW_IF_ERROR(cudaGetDevice(&device));
  TILECRAFT_THROW_IF_ERROR(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device));
  TILECRAFT_THROW_IF_ERROR(cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, device));
  if (major != 9 || minor != 0) {
    MESSAGE("sm_" << major << minor << ": no sm_90a code for this GPU, nothing to run");
    return;
  }
  tilecraft::test::Rng rng(tilecraft::test::seed() ^ 0x36A4);
  check_warpgroup_product<__nv_bfloat16, 64>(rng);
  check_warpgroup_product<__nv_bfloat16, 128>(rng);
  check_warpgroup_product<float, 64>(rng);
#else
  MESSAGE("built without sm_90a code: wgmma is not compiled in, nothing to run");
#endif
}
