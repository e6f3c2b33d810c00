// warp_reduce / warp_all_reduce against cub::WarpReduce and a host fold, for every logical
// warp size, partial warps, and operators that are commutative or only associative.
#include <doctest/doctest.h>

#include <cstdint>
#include <vector>

#include <cub/warp/warp_reduce.cuh>

#include <tilecraft/util/functional.cuh>
#include <tilecraft/warp/warp_reduce.cuh>

#include "ops.cuh"
#include "test_util.cuh"

using namespace tilecraft;
using tilecraft::test::DeviceBuffer;

template <int W, class T, class Op>
__global__ void warp_kernel(const T* in, T* first, T* all, T* partial, T* cub_first, const int* valid, Op op) {
  const int t = blockIdx.x * blockDim.x + threadIdx.x;
  const T v = in[t];
  first[t] = warp_reduce<W>(v, op);
  all[t] = warp_all_reduce<W>(v, op);
  partial[t] = warp_reduce<W>(v, op, valid[t / W]);
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
  DeviceBuffer<T> in(host), first(n), all(n), partial(n), cub_first(n);
  DeviceBuffer<int> d_valid(valid);
  for (auto* b : {&first, &all, &partial, &cub_first}) b->poison();
  warp_kernel<W><<<n / 256, 256>>>(in.get(), first.get(), all.get(), partial.get(), cub_first.get(), d_valid.get(), op);
  tilecraft::test::sync_and_check();
  const auto h_first = first.download(), h_all = all.download(), h_partial = partial.download(),
             h_cub = cub_first.download();
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
    for (int l = 0; l < W; ++l) bad += !(h_all[static_cast<std::size_t>(w * W + l)] == ref);
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
}

TEST_CASE("warp_reduce over every logical warp size") {
  check_all_types<1>();
  check_all_types<2>();
  check_all_types<4>();
  check_all_types<8>();
  check_all_types<16>();
  check_all_types<32>();
}
