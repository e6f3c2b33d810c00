// The warp level against CUB's warp primitives, host folds and a host model of the shuffles, in
// one translation unit (CUB's headers cost more compile time per unit than the cases).
#include <doctest/doctest.h>

#include <algorithm>
#include <cstdint>
#include <vector>

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cub/warp/warp_reduce.cuh>
#include <cub/warp/warp_scan.cuh>
#include <tilecraft/util/functional.cuh>
#include <tilecraft/warp/shuffle.cuh>
#include <tilecraft/warp/warp_reduce.cuh>
#include <tilecraft/warp/warp_scan.cuh>

#include "ops.cuh"
#include "test_util.cuh"

using namespace tilecraft;
using tilecraft::test::DeviceBuffer;

// warp_reduce / warp_all_reduce against cub::WarpReduce and a host fold, for every logical
// warp size, partial warps, and operators that are commutative or only associative.
namespace warp_reduce_tests {

template <int W, class T, class Op>
__global__ void warp_kernel(const T* in, T* first, T* all, T* partial, T* all_partial, T* cub_first, const int* valid,
                            Op op) {
  const int t = blockIdx.x * blockDim.x + threadIdx.x;
  const T v = in[t];
  first[t] = warp_reduce<W>(v, op);
  all[t] = warp_all_reduce<W>(v, op);
  partial[t] = warp_reduce<W>(v, op, valid[t / W]);
  all_partial[t] = warp_all_reduce<W>(v, op, valid[t / W]);
  using CubWarp = cub::WarpReduce<T, W>;
  __shared__ typename CubWarp::TempStorage cub_temp[256 / W];
  cub_first[t] = CubWarp(cub_temp[threadIdx.x / W]).Reduce(v, op);
}

template <int W, class T, class Op>
void check_warp(const std::vector<T>& host, Op op, bool compare_cub, std::uint64_t salt) {
  CAPTURE(W);
  const int n = static_cast<int>(host.size());  // a multiple of 256
  auto g = tilecraft::test::rng(salt);
  std::vector<int> valid(static_cast<std::size_t>(n / W));
  for (auto& v : valid) v = 1 + static_cast<int>(g() % W);
  DeviceBuffer<T> in(host), first(n), all(n), partial(n), all_partial(n), cub_first(n);
  DeviceBuffer<int> d_valid(valid);
  for (auto* b : {&first, &all, &partial, &all_partial, &cub_first}) b->poison();
  warp_kernel<W><<<n / 256, 256>>>(in.get(), first.get(), all.get(), partial.get(), all_partial.get(), cub_first.get(),
                                   d_valid.get(), op);
  tilecraft::test::sync_and_check();
  const auto h_first = first.download(), h_all = all.download(), h_partial = partial.download(),
             h_all_partial = all_partial.download(), h_cub = cub_first.download();
  int bad = 0;
  for (int w = 0; w < n / W; ++w) {
    T ref = host[static_cast<std::size_t>(w * W)];
    T ref_partial = ref;
    for (int l = 1; l < W; ++l) {
      ref = op(ref, host[static_cast<std::size_t>(w * W + l)]);
      if (l < valid[static_cast<std::size_t>(w)]) ref_partial = ref;
    }
    bad += !(h_first[static_cast<std::size_t>(w * W)] == ref);
    bad += !(h_partial[static_cast<std::size_t>(w * W)] == ref_partial);
    if (compare_cub) bad += !(h_cub[static_cast<std::size_t>(w * W)] == ref);
    for (int l = 0; l < W; ++l) {
      bad += !(h_all[static_cast<std::size_t>(w * W + l)] == ref);
      bad += !(h_all_partial[static_cast<std::size_t>(w * W + l)] == ref_partial);
    }
  }
  CHECK(bad == 0);
}

// member_mask: only the lanes of the logical warps inside the mask call warp_reduce (the rest
// of the warp takes the other branch): lanes 0-15 as two logical warps of 8 (mask 0x0000ffff),
// lanes 16-31 as one of 16 (mask 0xffff0000), each with its own count of valid lanes (stored
// at its first thread's index).
template <class T, class Op>
__global__ void warp_mask_kernel(const T* in, T* out, const int* valid, Op op) {
  const int t = blockIdx.x * blockDim.x + threadIdx.x;
  const T v = in[t];
  if (threadIdx.x % 32 < 16) {
    out[t] = warp_reduce<8>(v, op, valid[t - t % 8], 0x0000ffffu);
  } else {
    out[t] = warp_reduce<16>(v, op, valid[t - t % 16], 0xffff0000u);
  }
}

template <class T, class Op>
void check_warp_mask(const std::vector<T>& host, Op op, std::uint64_t salt) {
  const int n = static_cast<int>(host.size());  // a multiple of 256
  auto g = tilecraft::test::rng(salt);
  std::vector<int> valid(static_cast<std::size_t>(n), 0);
  std::vector<int> firsts;  // each logical warp's first thread
  for (int w = 0; w < n; w += 32) {
    for (int f : {w, w + 8, w + 16}) {
      valid[static_cast<std::size_t>(f)] = 1 + static_cast<int>(g() % (f < w + 16 ? 8 : 16));
      firsts.push_back(f);
    }
  }
  DeviceBuffer<T> in(host), out(static_cast<std::size_t>(n));
  DeviceBuffer<int> d_valid(valid);
  out.poison();
  warp_mask_kernel<<<n / 256, 256>>>(in.get(), out.get(), d_valid.get(), op);
  tilecraft::test::sync_and_check();
  const auto got = out.download();
  int bad = 0;
  for (int f : firsts) {
    T ref = host[static_cast<std::size_t>(f)];
    for (int l = 1; l < valid[static_cast<std::size_t>(f)]; ++l) ref = op(ref, host[static_cast<std::size_t>(f + l)]);
    bad += !(got[static_cast<std::size_t>(f)] == ref);
  }
  CHECK(bad == 0);
}

template <int W>
void check_all_types() {
  const int n = 256 * 7;
  // Small integers held in floats sum exactly in any order, so results compare bitwise.
  auto ints = tilecraft::test::random_vector<int>(n, -1000, 1000, 1 + W);
  std::vector<float> floats(ints.begin(), ints.end());
  std::vector<double> doubles(ints.begin(), ints.end());
  check_warp<W>(ints, Sum{}, true, 10 + W);
  check_warp<W>(ints, Max{}, true, 20 + W);
  check_warp<W>(floats, Sum{}, true, 30 + W);
  check_warp<W>(floats, Min{}, true, 40 + W);
  check_warp<W>(doubles, Sum{}, true, 50 + W);
  auto g = tilecraft::test::rng(60 + W);
  std::vector<test::Affine> affine(n);
  for (auto& f : affine) f = {static_cast<std::uint32_t>(g()) | 1u, static_cast<std::uint32_t>(g())};
  check_warp<W>(affine, test::Compose{}, false, 70 + W);
  std::vector<test::ArgMin> args(n);
  for (int i = 0; i < n; ++i) args[static_cast<std::size_t>(i)] = {static_cast<float>(g() % 50), i};
  check_warp<W>(args, test::ArgMinOp{}, true, 80 + W);
  if constexpr (W == 32) {
    // The rest of redux.sync's types and operators (sm_80 on; shuffles below), partial warps
    // included (their fill-in values: 0 for Sum and Max, UINT_MAX / INT_MAX for Min). Unsigned
    // sums wrap modulo 2^32 the same way on both sides.
    const auto uints = tilecraft::test::random_vector<unsigned>(n, 0, 4000000000.0, 90);
    check_warp<W>(uints, Sum{}, true, 91);
    check_warp<W>(uints, Min{}, true, 92);
    check_warp<W>(uints, Max{}, true, 93);
    check_warp<W>(ints, Min{}, true, 94);
  }
  if constexpr (W == 4 || W == 32) {
    // Types of 1 and 2 bytes (one shuffled word, part of it used) and of 16 bytes (four words; a
    // non-commutative operator): small values, so that the sums stay inside the type.
    check_warp<W>(tilecraft::test::random_vector<short>(n, -500, 500, 95), Sum{}, false, 96);
    check_warp<W>(tilecraft::test::random_vector<signed char>(n, -3, 3, 97), Max{}, false, 98);
    check_warp<W>(tilecraft::test::random_vector<signed char>(n, -3, 3, 99), Sum{}, false, 100);
    std::vector<test::Affine64> affine64(n);
    for (auto& f : affine64) f = {g() | 1u, g()};
    check_warp<W>(affine64, test::Compose64{}, false, 101);
  }
}

TEST_CASE("warp_reduce with a member mask: only the logical warps inside it call") {
  const auto ints = tilecraft::test::random_vector<int>(256 * 3, -1000, 1000, 100);
  check_warp_mask(ints, Sum{}, 101);
  check_warp_mask(std::vector<float>(ints.begin(), ints.end()), Max{}, 102);
}

TEST_CASE("warp_reduce over every logical warp size") {
  check_all_types<1>();
  check_all_types<2>();
  check_all_types<4>();
  check_all_types<8>();
  check_all_types<16>();
  check_all_types<32>();
}

}  // namespace warp_reduce_tests

// warp_inclusive_scan / warp_exclusive_scan against a host fold (and cub::WarpScan for integer
// sums) for every logical warp size, with and without the warp aggregate and the seed, for
// operators that are commutative or only associative.
namespace warp_scan_tests {

// Per thread: [0] inclusive, [1] inclusive (aggregate form), [2] the aggregate, [3] exclusive
// seeded, [4] exclusive seeded (aggregate form), [5] its aggregate, [6] exclusive unseeded,
// [7] cub::WarpScan's inclusive (integer sums only).
template <int W, bool WithCub, class T, class Op>
__global__ void warp_scan_kernel(const T* in, T* out, T init, Op op) {
  const int t = blockIdx.x * blockDim.x + threadIdx.x;
  const T v = in[t];
  T* o = out + static_cast<std::size_t>(t) * 8;
  o[0] = warp_inclusive_scan<W>(v, op);
  T agg;
  o[1] = warp_inclusive_scan<W>(v, op, agg);
  o[2] = agg;
  o[3] = warp_exclusive_scan<W>(v, op, init);
  o[4] = warp_exclusive_scan<W>(v, op, init, agg);
  o[5] = agg;
  o[6] = warp_exclusive_scan<W>(v, op);
  if constexpr (WithCub) {
    using CubScan = cub::WarpScan<T, W>;
    __shared__ typename CubScan::TempStorage cub_temp[256 / W];
    T c;
    CubScan(cub_temp[threadIdx.x / W]).InclusiveSum(v, c);
    o[7] = c;
  }
}

template <int W, bool WithCub, class T, class Op>
void check_warp_scan(const std::vector<T>& host, T init, Op op) {
  CAPTURE(W);
  const int n = static_cast<int>(host.size());  // a multiple of 256
  DeviceBuffer<T> in(host), out(static_cast<std::size_t>(n) * 8);
  out.poison();
  warp_scan_kernel<W, WithCub><<<n / 256, 256>>>(in.get(), out.get(), init, op);
  tilecraft::test::sync_and_check();
  const auto got = out.download();
  int bad = 0;
  for (int w = 0; w < n / W; ++w) {
    T total = host[static_cast<std::size_t>(w * W)];
    for (int l = 1; l < W; ++l) total = op(total, host[static_cast<std::size_t>(w * W + l)]);
    T incl = host[static_cast<std::size_t>(w * W)];
    T excl = init;
    for (int l = 0; l < W; ++l) {
      const std::size_t t = static_cast<std::size_t>(w * W + l);
      const T before = incl;  // x_0 op ... op x_{l-1} for l > 0 (the unseeded exclusive result)
      if (l > 0) incl = op(incl, host[t]);
      const T* o = got.data() + t * 8;
      bad += !(o[0] == incl) + !(o[1] == incl) + !(o[2] == total);
      bad += !(o[3] == excl) + !(o[4] == excl) + !(o[5] == total);
      bad += !(o[6] == (l == 0 ? host[t] : before));
      if constexpr (WithCub) bad += !(o[7] == incl);
      excl = op(excl, host[t]);
    }
  }
  CHECK(bad == 0);
}

// Seeds that are the operator's identity and seeds that are not (a seed must enter on the
// left: init op x_0 op ...); float and unsigned sums, whose shuffles add in place, on small
// integers (exact in any order).
template <int W>
void check_all() {
  const int n = 256 * 4;
  const auto ints = tilecraft::test::random_vector<int>(n, -1000, 1000, 1 + W);
  check_warp_scan<W, true>(ints, 0, Sum{});
  check_warp_scan<W, false>(ints, 7, Sum{});
  check_warp_scan<W, false>(ints, INT32_MIN, Max{});
  check_warp_scan<W, false>(std::vector<float>(ints.begin(), ints.end()), -2.5f, Sum{});
  check_warp_scan<W, false>(tilecraft::test::random_vector<unsigned>(n, 0, 4000000000.0, 40 + W), 3u, Sum{});
  auto g = tilecraft::test::rng(60 + W);
  std::vector<test::Affine> affine(n);
  for (auto& f : affine) f = {static_cast<std::uint32_t>(g()) | 1u, static_cast<std::uint32_t>(g())};
  check_warp_scan<W, false>(affine, test::Affine{1u, 0u}, test::Compose{});  // identity map
  check_warp_scan<W, false>(affine, test::Affine{3u, 5u}, test::Compose{});
  if constexpr (W == 4 || W == 32) {
    // Types of 1, 2 and 16 bytes (see warp_reduce's test).
    check_warp_scan<W, false>(tilecraft::test::random_vector<short>(n, -500, 500, 41 + W), short{3}, Sum{});
    check_warp_scan<W, false>(tilecraft::test::random_vector<signed char>(n, -3, 3, 42 + W),
                              static_cast<signed char>(-1), Sum{});
    std::vector<test::Affine64> affine64(n);
    for (auto& f : affine64) f = {g() | 1u, g()};
    check_warp_scan<W, false>(affine64, test::Affine64{3u, 5u}, test::Compose64{});
  }
}

TEST_CASE("warp_scan over every logical warp size") {
  check_all<1>();
  check_all<2>();
  check_all<4>();
  check_all<8>();
  check_all<16>();
  check_all<32>();
}

// 16-bit floats, which warp_reduce and the warp scans shuffle and add in their own type (no
// wider accumulator, unlike block_reduce): small integers, so every sum is exact in both.
template <int W, class T>
__global__ void warp_16bit_kernel(const T* in, T* out) {
  const int t = blockIdx.x * blockDim.x + threadIdx.x;
  const T v = in[t];
  T* o = out + static_cast<std::size_t>(t) * 4;
  o[0] = warp_all_reduce<W>(v, Sum{});
  o[1] = warp_inclusive_scan<W>(v, Sum{});
  o[2] = warp_exclusive_scan<W>(v, Sum{}, static_cast<T>(3.0f));
  o[3] = warp_reduce<W>(v, Max{}, 1 + (t / W) % W);  // a partial warp of 1 ... W valid lanes (lane 0's result)
}

template <int W, class T>
void check_16bit(std::uint64_t salt) {
  CAPTURE(W);
  const int n = 256 * 2;
  const auto ints = tilecraft::test::random_vector<int>(n, 0, 4, salt);  // sums <= 131: exact
  std::vector<T> host(static_cast<std::size_t>(n));
  for (int i = 0; i < n; ++i) host[static_cast<std::size_t>(i)] = static_cast<T>(static_cast<float>(ints[i]));
  DeviceBuffer<T> in(host), out(static_cast<std::size_t>(n) * 4);
  out.poison();
  warp_16bit_kernel<W><<<n / 256, 256>>>(in.get(), out.get());
  tilecraft::test::sync_and_check();
  const auto got = out.download();
  int bad = 0;
  for (int w = 0; w < n / W; ++w) {
    float total = 0.0f;
    for (int l = 0; l < W; ++l) total += static_cast<float>(ints[static_cast<std::size_t>(w * W + l)]);
    float incl = 0.0f;
    for (int l = 0; l < W; ++l) {
      const std::size_t t = static_cast<std::size_t>(w * W + l);
      const float excl = 3.0f + incl;
      incl += static_cast<float>(ints[t]);
      bad += static_cast<float>(got[t * 4 + 0]) != total;
      bad += static_cast<float>(got[t * 4 + 1]) != incl;
      bad += static_cast<float>(got[t * 4 + 2]) != excl;
      if (l == 0) {
        float most = static_cast<float>(ints[t]);
        for (int v = 1; v < 1 + w % W; ++v)
          most = std::max(most, static_cast<float>(ints[t + static_cast<std::size_t>(v)]));
        bad += static_cast<float>(got[t * 4 + 3]) != most;
      }
    }
  }
  CHECK(bad == 0);
}

TEST_CASE("warp_reduce and the warp scans on __half and __nv_bfloat16") {
  check_16bit<32, __half>(201);
  check_16bit<32, __nv_bfloat16>(202);
  check_16bit<8, __half>(203);
  check_16bit<4, __nv_bfloat16>(204);
}

}  // namespace warp_scan_tests

// shuffle_down / shuffle_up / shuffle_index moved word by word: types of 1, 6, 12 and 20 bytes
// (a last partial word; alignment 1), and 8-byte doubles; logical warps of 1 to 32 lanes, with
// member masks that name only some of a warp's segments (the lanes outside return at once and
// must keep their poisoned outputs). Against a host model of the shuffles' lane arithmetic.
namespace shuffle_tests {

template <int N>
struct Bytes {
  unsigned char b[N];
};
static_assert(sizeof(Bytes<6>) == 6 && alignof(Bytes<6>) == 1);

template <class T>
__global__ void shuffle_kernel(const T* in, T* down, T* up, T* index, int width, unsigned mask, unsigned delta,
                               int src) {
  const int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (((mask >> (threadIdx.x % 32)) & 1u) == 0) return;
  const T v = in[t];
  down[t] = shuffle_down(v, delta, width, mask);
  up[t] = shuffle_up(v, delta, width, mask);
  index[t] = shuffle_index(v, src, width, mask);
}

struct Case {
  int width;
  unsigned mask;  // whole segments of `width` lanes only: every shuffle's source lane calls
  unsigned delta;
  int src;  // may be past the segment: shuffle_index takes it modulo the width
};

template <class T>
void check_shuffles(const Case& c, std::uint64_t salt) {
  CAPTURE(sizeof(T));
  CAPTURE(c.width);
  CAPTURE(c.mask);
  CAPTURE(c.delta);
  CAPTURE(c.src);
  const int n = 256 * 3;
  auto g = tilecraft::test::rng(salt);
  std::vector<T> host(static_cast<std::size_t>(n));
  for (auto& v : host) v = tilecraft::test::make_value<T>(g());
  DeviceBuffer<T> in(host), down(host.size()), up(host.size()), index(host.size());
  for (auto* b : {&down, &up, &index}) b->poison();
  shuffle_kernel<<<n / 256, 256>>>(in.get(), down.get(), up.get(), index.get(), c.width, c.mask, c.delta, c.src);
  tilecraft::test::sync_and_check();
  const auto h_down = down.download(), h_up = up.download(), h_index = index.download();
  const T poison = tilecraft::test::poison_value<T>();
  const int w = c.width, d = static_cast<int>(c.delta);
  int bad = 0, called = 0;
  for (int t = 0; t < n; ++t) {
    const std::size_t i = static_cast<std::size_t>(t);
    const int lane = t % 32, in_segment = lane % w, first = t - in_segment;
    if (((c.mask >> lane) & 1u) == 0) {
      bad += !tilecraft::test::same_bits(h_down[i], poison) + !tilecraft::test::same_bits(h_up[i], poison) +
             !tilecraft::test::same_bits(h_index[i], poison);
      continue;
    }
    ++called;
    const std::size_t from_down = static_cast<std::size_t>(in_segment + d < w ? t + d : t);
    const std::size_t from_up = static_cast<std::size_t>(in_segment >= d ? t - d : t);
    const std::size_t from_index = static_cast<std::size_t>(first + c.src % w);
    bad += !tilecraft::test::same_bits(h_down[i], host[from_down]);
    bad += !tilecraft::test::same_bits(h_up[i], host[from_up]);
    bad += !tilecraft::test::same_bits(h_index[i], host[from_index]);
  }
  CHECK(called > 0);
  CHECK(bad == 0);
}

TEST_CASE("shuffles of any trivially copyable type, in segments and under member masks") {
  const Case cases[] = {
      {32, full_warp_mask, 3, 33},   // index past the warp: lane 1
      {32, full_warp_mask, 31, 31},  // down: lane 0 alone takes a value (31's); up: lane 31 (0's)
      {8, full_warp_mask, 5, 6},     // segments of 8
      {4, 0x000fffffu, 1, 2},        // the first five segments of 4 lanes
      {16, 0xffff0000u, 7, 21},      // the upper half alone
      {2, 0x0000ff00u, 1, 1},        // four pairs in the middle
      {1, 0x80000001u, 1, 0},        // one-lane segments: every lane keeps its own value
  };
  std::uint64_t salt = 500;
  for (const Case& c : cases) {
    check_shuffles<Bytes<1>>(c, ++salt);
    check_shuffles<Bytes<6>>(c, ++salt);
    check_shuffles<Bytes<12>>(c, ++salt);
    check_shuffles<Bytes<20>>(c, ++salt);
    check_shuffles<double>(c, ++salt);
  }
}

}  // namespace shuffle_tests
