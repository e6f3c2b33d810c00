// warp_inclusive_scan / warp_exclusive_scan against a host fold (and cub::WarpScan for integer
// sums) for every logical warp size, with and without the warp aggregate and the seed, for
// operators that are commutative or only associative.
#include <doctest/doctest.h>

#include <cstdint>
#include <vector>

#include <cub/warp/warp_scan.cuh>

#include <tilecraft/util/functional.cuh>
#include <tilecraft/warp/warp_scan.cuh>

#include "ops.cuh"
#include "test_util.cuh"

using namespace tilecraft;
using tilecraft::test::DeviceBuffer;

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
      if (l > 0) incl = op(incl, host[t]);
      const T* o = got.data() + t * 8;
      bad += !(o[0] == incl) + !(o[1] == incl) + !(o[2] == total);
      bad += !(o[3] == excl) + !(o[4] == excl) + !(o[5] == total);
      bad += !(o[6] == (l == 0 ? host[t] : excl));  // init is an identity: excl is x_0 op ... op x_{l-1}
      if constexpr (WithCub) bad += !(o[7] == incl);
      excl = op(excl, host[t]);
    }
  }
  CHECK(bad == 0);
}

// Every init is the operator's identity, so the seeded exclusive result of lane l > 0 is also
// what the unseeded one must return.
template <int W>
void check_all() {
  const int n = 256 * 4;
  const auto ints = tilecraft::test::random_vector<int>(n, -1000, 1000, 1 + W);
  check_warp_scan<W, true>(ints, 0, Sum{});
  check_warp_scan<W, false>(ints, INT32_MIN, Max{});
  auto g = tilecraft::test::rng(60 + W);
  std::vector<test::Affine> affine(n);
  for (auto& f : affine) f = {static_cast<std::uint32_t>(g()) | 1u, static_cast<std::uint32_t>(g())};
  check_warp_scan<W, false>(affine, test::Affine{1u, 0u}, test::Compose{});  // identity map
}

TEST_CASE("warp_scan over every logical warp size") {
  check_all<1>();
  check_all<2>();
  check_all<4>();
  check_all<8>();
  check_all<16>();
  check_all<32>();
}
