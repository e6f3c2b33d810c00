// Asynchronous copies at every level: the raw cp.async wrappers (sm_80+), the L2 prefetches
// (arch/prefetch.cuh), copy_async and its zero-filling form, commit/wait groups, and Pipeline
// with 1 to 4 stages streaming vectors and matrices with partial tiles. Built twice: as is, and with
// TILECRAFT_DISABLE_CP_ASYNC (the synchronous path), with the same expectations.
#include <doctest/doctest.h>

#include <cstdint>
#include <cstring>
#include <vector>

#include <nv/target>

#include <tilecraft/arch/cp_async.cuh>
#include <tilecraft/arch/prefetch.cuh>
#include <tilecraft/memory/copy_async.cuh>
#include <tilecraft/memory/pipeline.cuh>
#include <tilecraft/memory/tile_copy.cuh>

#include "test_util.cuh"

using namespace tilecraft;
using tilecraft::test::DeviceBuffer;

namespace {

// ---- arch/cp_async.cuh: each wrapper on its own (sm_80+ only; `ran` says whether it ran) ----

// Thread t copies word t of `src` with cp.async.ca<Bytes> (or .cg), zero-fills word t of a
// second region from src_bytes bytes, then commits and waits; a second group is waited with
// wait_group 1 after a third is committed.
template <int Bytes, bool Cg>
__device__ void arch_body(const unsigned char* src, unsigned char* out, std::uint32_t src_bytes, int* ran) {
  __shared__ alignas(16) unsigned char a[32 * Bytes];
  __shared__ alignas(16) unsigned char b[32 * Bytes];
  __shared__ alignas(16) unsigned char c[32 * Bytes];
  const int t = static_cast<int>(threadIdx.x);
  if constexpr (Cg) {
    arch::cp_async_cg<Bytes>(a + t * Bytes, src + t * Bytes);
    arch::cp_async_cg_zfill<Bytes>(b + t * Bytes, src + (32 + t) * Bytes, src_bytes);
  } else {
    arch::cp_async_ca<Bytes>(a + t * Bytes, src + t * Bytes);
    arch::cp_async_ca_zfill<Bytes>(b + t * Bytes, src + (32 + t) * Bytes, src_bytes);
  }
  arch::cp_async_commit();
  arch::cp_async_ca_zfill<Bytes>(c + t * Bytes, src + (64 + t) * Bytes, Bytes);
  arch::cp_async_commit();
  arch::cp_async_wait<1>();  // the first group has landed; the second may not have
  for (int k = 0; k < Bytes; ++k) out[t * Bytes + k] = a[t * Bytes + k];
  for (int k = 0; k < Bytes; ++k) out[(32 + t) * Bytes + k] = b[t * Bytes + k];
  arch::cp_async_wait_all();
  for (int k = 0; k < Bytes; ++k) out[(64 + t) * Bytes + k] = c[t * Bytes + k];
  if (t == 0) *ran = 1;
}

template <int Bytes, bool Cg>
__global__ void arch_kernel(const unsigned char* src, unsigned char* out, std::uint32_t src_bytes, int* ran) {
  NV_IF_TARGET(NV_PROVIDES_SM_80, (arch_body<Bytes, Cg>(src, out, src_bytes, ran);))
}

template <int Bytes, bool Cg>
void check_arch(std::uint32_t src_bytes, std::uint64_t salt) {
  CAPTURE(Bytes);
  CAPTURE(Cg);
  CAPTURE(src_bytes);
  const auto host = tilecraft::test::random_vector<unsigned char>(96 * Bytes, 0, 255, salt);
  DeviceBuffer<unsigned char> src(host), out(host.size());
  DeviceBuffer<int> ran(1);
  out.poison();
  TILECRAFT_THROW_IF_ERROR(cudaMemset(ran.get(), 0, sizeof(int)));
  arch_kernel<Bytes, Cg><<<1, 32>>>(src.get(), out.get(), src_bytes, ran.get());
  tilecraft::test::sync_and_check();
  if (ran.download()[0] == 0) {
    MESSAGE("cp.async wrappers not run: this device code is older than sm_80");
    return;
  }
  const auto h = out.download();
  int bad = 0;
  for (int t = 0; t < 32; ++t) {
    for (int k = 0; k < Bytes; ++k) {
      bad += h[t * Bytes + k] != host[t * Bytes + k];
      const unsigned char want_b = k < static_cast<int>(src_bytes) ? host[(32 + t) * Bytes + k] : 0;
      bad += h[(32 + t) * Bytes + k] != want_b;
      bad += h[(64 + t) * Bytes + k] != host[(64 + t) * Bytes + k];
    }
  }
  CHECK(bad == 0);
}

// ---- memory/copy_async.cuh --------------------------------------------------------------------

// Thread t copies element t (when inside[t]) or zero-fills it, then waits with the barrier and
// writes the element a different thread copied. Address: the destination given in the
// shared-window address form (arch::smem_address) instead of a pointer.
template <class W, bool Address>
__global__ void copy_async_kernel(const W* src, const int* inside, W* out, int n) {
  __shared__ W buf[256];
  const int t = static_cast<int>(threadIdx.x);
  auto dst = [&] {
    if constexpr (Address) {
      return arch::smem_address(&buf[t]);
    } else {
      return &buf[t];
    }
  };
  if (t < n) {
    if (t % 3 == 0) {
      copy_async<sizeof(W)>(dst(), &src[t]);
    } else {
      copy_async<sizeof(W)>(dst(), &src[inside[t] ? t : 0], inside[t] != 0);
    }
  }
  copy_async_commit();
  copy_async_wait_block<0>();
  const int from = n - 1 - t;
  if (t < n) out[t] = buf[from];
}

template <class W, bool Address>
void check_copy_async(std::uint64_t salt) {
  constexpr int n = 231;
  auto g = tilecraft::test::rng(salt);
  std::vector<W> host(n);
  for (auto& w : host) {
    unsigned char bytes[sizeof(W)];
    for (auto& b : bytes) b = static_cast<unsigned char>(g() | 1);  // never all-zero
    std::memcpy(&w, bytes, sizeof(W));
  }
  std::vector<int> inside(n);
  for (auto& x : inside) x = static_cast<int>(g() % 2);
  DeviceBuffer<W> src(host), out(n);
  DeviceBuffer<int> d_inside(inside);
  out.poison();
  copy_async_kernel<W, Address><<<1, 256>>>(src.get(), d_inside.get(), out.get(), n);
  tilecraft::test::sync_and_check();
  const auto h = out.download();
  int bad = 0;
  for (int t = 0; t < n; ++t) {
    const int from = n - 1 - t;
    W want{};
    if (from % 3 == 0 || inside[static_cast<std::size_t>(from)]) want = host[static_cast<std::size_t>(from)];
    bad += std::memcmp(&h[static_cast<std::size_t>(t)], &want, sizeof(W)) != 0;
  }
  CHECK(bad == 0);
}

// ---- memory/pipeline.cuh ----------------------------------------------------------------------

// Streams x (n elements) through a pipeline of 1 x TileN tiles, grid-stride over tiles, and
// writes y[i] = 2 x[i] + x[i + 1 within the tile, wrapping] (a read of another thread's element,
// so a missing barrier shows) for the elements inside x.
// Refill: early (the next tile is issued right after consumer_wait, whose barrier makes the
// stage it refills free: Stages - 1 tiles in flight) or late (every stage filled first, each
// refilled after its release, so producer_acquire's own barrier keeps the refill from
// overwriting a stage other threads still read).
enum class Refill { early, late };

template <class T, int TileN, int Stages, int Threads, Refill When>
__global__ void pipeline_stream_kernel(const T* x, T* y, std::int64_t n) {
  using Tile = SharedMatrix<T, 1, TileN>;
  __shared__ PipelineStorage<Tile, Stages> storage;
  Pipeline pipe(storage);
  const MatrixRef<const T> src{x, 1, n, n};
  const std::int64_t tiles = (n + TileN - 1) / TileN;
  const std::int64_t first = blockIdx.x, step = gridDim.x;
  std::int64_t next = first;  // next tile to issue
  auto issue = [&] {
    copy_tile_async<Threads>(pipe.producer_acquire(), src, 0, next * TileN);
    pipe.producer_commit();
    next += step;
  };
  constexpr bool late = When == Refill::late;
  for (int s = 0; s < (late ? Stages : Stages - 1) && next < tiles; ++s) issue();
  for (std::int64_t k = first; k < tiles; k += step) {
    // Early with one stage: nothing in flight, so this tile loads first (the acquire barriers).
    if (!late && Stages == 1) issue();
    const Tile& t = pipe.consumer_wait();
    if (!late && Stages > 1 && next < tiles) issue();
    for (int j = static_cast<int>(threadIdx.x); j < TileN; j += Threads) {
      const std::int64_t i = k * TileN + j;
      if (i < n) y[i] = T(2) * t(0, j) + t(0, (j + 1) % TileN);
    }
    pipe.consumer_release();
    if (late && next < tiles) issue();
  }
  pipe.drain();
}

template <class T, int TileN, int Stages, int Threads, Refill When = Refill::early>
void check_pipeline_stream(std::int64_t n, int blocks, std::uint64_t salt) {
  CAPTURE(n);
  CAPTURE(Stages);
  CAPTURE(blocks);
  CAPTURE(When == Refill::late);
  const auto host = tilecraft::test::random_vector<T>(static_cast<std::size_t>(n), -100, 100, salt);
  DeviceBuffer<T> x(host), y(static_cast<std::size_t>(n));
  y.poison();
  pipeline_stream_kernel<T, TileN, Stages, Threads, When><<<blocks, Threads>>>(x.get(), y.get(), n);
  tilecraft::test::sync_and_check();
  const auto h = y.download();
  int bad = 0;
  for (std::int64_t i = 0; i < n; ++i) {
    const std::int64_t tile0 = i / TileN * TileN, j = i % TileN;
    const std::int64_t nb = tile0 + (j + 1) % TileN;
    const T right = nb < n ? host[static_cast<std::size_t>(nb)] : T(0);
    const T want = T(2) * host[static_cast<std::size_t>(i)] + right;
    bad += !(h[static_cast<std::size_t>(i)] == want);
  }
  CHECK(bad == 0);
}

// A matrix's row sums through a pipeline of TR x TK tiles walking along K (a GEMM's A panel):
// thread (r, q) of a TR x 32 arrangement sums tile columns q, q + 32, ...; the tile at K offset
// k0 = -Shift starts left of the matrix, so the first tile has a negative origin, and the last
// one runs past the end; rows past the end are tested too. Elements outside read as zero.
template <int TR, int TK, int Stages>
__global__ void pipeline_rowsum_kernel(MatrixRef<const float> a, float* sums, int shift) {
  using Tile = SharedMatrix<float, TR, TK, Swizzled<16>>;
  constexpr int threads = TR * 32;
  __shared__ PipelineStorage<Tile, Stages> storage;
  Pipeline pipe(storage);
  const std::int64_t r0 = static_cast<std::int64_t>(blockIdx.x) * TR;
  const int tiles = static_cast<int>((a.cols + shift + TK - 1) / TK);
  int issued = 0;
  auto issue = [&] {
    copy_tile_async<threads>(pipe.producer_acquire(), a, r0, static_cast<std::int64_t>(issued) * TK - shift);
    pipe.producer_commit();
    ++issued;
  };
  while (issued < Stages - 1 && issued < tiles) issue();
  const int r = static_cast<int>(threadIdx.x) / 32, q = static_cast<int>(threadIdx.x) % 32;
  float acc = 0;
  for (int k = 0; k < tiles; ++k) {
    if (Stages == 1) issue();
    const Tile& t = pipe.consumer_wait();
    if (Stages > 1 && issued < tiles) issue();
    for (int c = q; c < TK; c += 32) acc += t((r + 1) % TR, c);  // the next row: another warp's copies
    pipe.consumer_release();
  }
  for (int o = 16; o > 0; o /= 2) acc += __shfl_xor_sync(0xffffffffu, acc, o);
  const std::int64_t row = r0 + (r + 1) % TR;
  if (q == 0 && row < a.rows) sums[row] = acc;
}

template <int TR, int TK, int Stages>
void check_pipeline_rowsum(std::int64_t rows, std::int64_t cols, std::int64_t ld, int shift, std::uint64_t salt) {
  CAPTURE(rows);
  CAPTURE(cols);
  CAPTURE(ld);
  CAPTURE(shift);
  CAPTURE(Stages);
  const auto host = tilecraft::test::random_vector<float>(static_cast<std::size_t>(rows * ld), -1, 1, salt);
  DeviceBuffer<float> a(host), sums(static_cast<std::size_t>(rows));
  sums.poison();
  const int blocks = static_cast<int>((rows + TR - 1) / TR);
  pipeline_rowsum_kernel<TR, TK, Stages>
      <<<blocks, TR * 32>>>(MatrixRef<const float>{a.get(), rows, cols, ld}, sums.get(), shift);
  tilecraft::test::sync_and_check();
  const auto h = sums.download();
  int bad = 0;
  for (std::int64_t r = 0; r < rows; ++r) {
    double want = 0, abs_sum = 0;
    for (std::int64_t c = 0; c < cols; ++c) {
      want += host[static_cast<std::size_t>(r * ld + c)];
      abs_sum += std::abs(host[static_cast<std::size_t>(r * ld + c)]);
    }
    const double tol = tilecraft::test::sum_tolerance(abs_sum, static_cast<double>(cols), 6e-8);
    bad += !(std::abs(h[static_cast<std::size_t>(r)] - want) <= tol);
  }
  CHECK(bad == 0);
}

// ---- arch/prefetch.cuh: hints that must leave memory as it is, at any alignment ----

// Block b prefetches Bytes from src + starts[b] (by lines or, where it can, by one bulk prefetch),
// then copies those bytes to dst + b * Bytes: a prefetch changes nothing, and its instruction
// must be valid for every start (the bulk form takes only 16-byte-aligned ones).
template <int Threads, std::size_t Bytes, bool Bulk>
__global__ void __launch_bounds__(Threads)
    prefetch_then_copy(const unsigned char* src, const std::int64_t* starts, unsigned char* dst) {
  const unsigned char* from = src + starts[blockIdx.x];
  if constexpr (Bulk) {
    tilecraft::arch::prefetch_l2_bulk<Threads, Bytes>(from, static_cast<int>(threadIdx.x));
  } else {
    tilecraft::arch::prefetch_l2_block<Threads, Bytes>(from, static_cast<int>(threadIdx.x));
  }
  for (std::size_t i = threadIdx.x; i < Bytes; i += Threads) dst[blockIdx.x * Bytes + i] = from[i];
}

template <int Threads, std::size_t Bytes, bool Bulk>
void check_prefetch(std::uint64_t salt) {
  auto rng = tilecraft::test::rng(salt);
  constexpr std::size_t total = 3 * Bytes + 256;  // (room for every fixed start below)
  std::vector<unsigned char> host(total);
  for (auto& b : host) b = static_cast<unsigned char>(rng());
  // Aligned, 16-byte aligned but not to a line, odd, and the range that ends where the data
  // ends (one byte before the allocation's: DeviceBuffer allocates one byte more).
  std::vector<std::int64_t> starts = {0, 16, 128, 3, 77, static_cast<std::int64_t>(total - Bytes)};
  for (int k = 0; k < 4; ++k) starts.push_back(static_cast<std::int64_t>(rng() % (total - Bytes + 1)));
  for (const std::int64_t start : starts)
    REQUIRE(start + static_cast<std::int64_t>(Bytes) <= static_cast<std::int64_t>(total));
  DeviceBuffer<unsigned char> src(host);
  DeviceBuffer<std::int64_t> d_starts(starts);
  DeviceBuffer<unsigned char> out(starts.size() * Bytes);
  out.poison();
  prefetch_then_copy<Threads, Bytes, Bulk>
      <<<static_cast<unsigned>(starts.size()), Threads>>>(src.get(), d_starts.get(), out.get());
  tilecraft::test::sync_and_check();
  const std::vector<unsigned char> got = out.download();
  int bad = 0;
  for (std::size_t b = 0; b < starts.size(); ++b) {
    bad += std::memcmp(got.data() + b * Bytes, host.data() + starts[b], Bytes) != 0;
  }
  CHECK(bad == 0);
}

}  // namespace

TEST_CASE("arch::cp_async wrappers: every size, .ca and .cg, zero-fill, groups") {
  check_arch<4, false>(4, 1);
  check_arch<4, false>(0, 2);
  check_arch<8, false>(8, 3);
  check_arch<8, false>(4, 4);
  check_arch<16, false>(16, 5);
  check_arch<16, false>(8, 6);
  check_arch<16, true>(16, 7);
  check_arch<16, true>(0, 8);
  check_arch<16, true>(12, 9);
}

TEST_CASE("arch::prefetch_l2_block and prefetch_l2_bulk: any start, up to the allocation's end, memory unchanged") {
  check_prefetch<128, 32768, false>(21);
  check_prefetch<128, 32768, true>(22);
  check_prefetch<256, 4096, true>(23);
  check_prefetch<64, 100, true>(24);  // not a multiple of 16: by lines
  check_prefetch<32, 16, true>(25);
}

TEST_CASE_TEMPLATE("copy_async and its zero-filling form", W, unsigned, uint2, uint4) {
  INFO("synchronous path forced: ", cp_async_disabled);
  SUBCASE("pointer destination") { check_copy_async<W, false>(11); }
  SUBCASE("shared-window address destination") { check_copy_async<W, true>(12); }
}

TEST_CASE("Pipeline streams a vector with 1 to 4 stages, refilled before or after the release") {
  for (std::int64_t n : {0, 1, 255, 256, 257, 1000, 4097, 100003}) {
    check_pipeline_stream<float, 256, 1, 128>(n, 3, 21);
    check_pipeline_stream<float, 256, 2, 128>(n, 3, 22);
    check_pipeline_stream<float, 256, 3, 128>(n, 5, 23);
    check_pipeline_stream<float, 256, 4, 128>(n, 7, 24);
    check_pipeline_stream<double, 128, 3, 64>(n, 2, 25);
    // Every stage refilled after its release: producer_acquire's barrier at every stage count.
    check_pipeline_stream<float, 256, 1, 128, Refill::late>(n, 3, 26);
    check_pipeline_stream<float, 256, 2, 128, Refill::late>(n, 3, 27);
    check_pipeline_stream<float, 256, 4, 128, Refill::late>(n, 7, 28);
  }
}

TEST_CASE("Pipeline of 2D tiles with negative and past-the-end origins") {
  check_pipeline_rowsum<4, 64, 1>(13, 300, 301, 5, 31);
  check_pipeline_rowsum<4, 64, 2>(13, 300, 300, 0, 32);
  check_pipeline_rowsum<4, 64, 3>(16, 1001, 1004, 7, 33);
  check_pipeline_rowsum<8, 32, 4>(29, 257, 260, 31, 34);
  check_pipeline_rowsum<8, 32, 4>(3, 1, 1, 3, 35);
}
